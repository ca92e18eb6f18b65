package io.github.delayqueue.testservices;

/**
 * Rewrites a MySQL or MariaDB JDBC URL to select another database, keeping host, port and parameters: how the tests
 * and the benchmark give each run a database of its own on the server they were pointed at.
 */
public final class JdbcUrls {

    private JdbcUrls() {
    }

    public static String withDatabase(String url, String database) {
        int hostStart = url.indexOf("//");
        if (hostStart < 0) {
            throw new IllegalArgumentException("Not a jdbc:mysql:// or jdbc:mariadb://host:port/ URL: " + url);
        }
        int query = url.indexOf('?', hostStart);
        String base = query < 0 ? url : url.substring(0, query);
        String params = query < 0 ? "" : url.substring(query);
        int pathStart = base.indexOf('/', hostStart + 2);
        String server = pathStart < 0 ? base : base.substring(0, pathStart);
        return server + "/" + database + params;
    }
}
