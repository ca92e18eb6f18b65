package io.github.delayqueue.sample.embedded;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an embedded MariaDB that would not start the way Spring Boot reports a failed start: what happened, with
 * the server's last output, and then, last on the screen, how to go on (a database of your own, or more time).
 */
class EmbeddedDatabaseFailureAnalyzer extends AbstractFailureAnalyzer<EmbeddedDatabaseStartException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedDatabaseStartException cause) {
        StringBuilder description = new StringBuilder(cause.timedOut()
                ? "The embedded MariaDB was not ready for connections within " + cause.startTimeout().toSeconds()
                        + " s, twice. A busy or slow machine can take that long to install and start it."
                : "The embedded MariaDB could not be installed or started.");
        Throwable server = cause.getCause();
        if (server != null && server.getMessage() != null) {
            description.append("\n\nMariaDB4j reported:\n").append(server.getMessage().strip());
        }
        String action = "Use a MySQL or MariaDB of your own: set spring.datasource.url (and spring.datasource.username,"
                + " spring.datasource.password), e.g.\n\n"
                + "    SPRING_DATASOURCE_URL=jdbc:mysql://127.0.0.1:3306/shop SPRING_DATASOURCE_USERNAME=root \\\n"
                + "    java -jar delay-sample-app/target/delay-sample-app.jar\n\n"
                + "The database must exist; the app creates its tables, and starts no embedded MariaDB then."
                + (cause.timedOut() ? " Or give the embedded one more time: --" + EmbeddedMariaDb.START_TIMEOUT_PROPERTY
                        + "=" + cause.startTimeout().multipliedBy(2).toSeconds() + "s." : "");
        return new FailureAnalysis(description.toString(), action, cause);
    }
}
