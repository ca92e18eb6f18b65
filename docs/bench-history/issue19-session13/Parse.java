import java.sql.*;
import java.util.*;

/** Time N client-side prepareStatement calls (Connector/J parses each) of the library's INSERT, plain or with quoted columns. */
public class Parse {
    public static void main(String[] a) throws Exception {
        boolean quoted = a[0].equals("quoted");
        int n = Integer.parseInt(a[1]);
        String cols = quoted
            ? "(`task_type`, `task_key`, `payload`, `due_at`, `status`, `attempts`, `max_attempts`, `created_at`, `updated_at`, `trace_context`)"
            : "(task_type, task_key, payload, due_at, status, attempts, max_attempts, created_at, updated_at, trace_context)";
        String row = "(?, ?, ?, ?, ?, 0, ?, ?, ?, ?)";
        String[] sql = new String[4];
        for (int r = 1; r <= 4; r++) {
            sql[r - 1] = "INSERT INTO `delay_task`\n    " + cols + "\nVALUES " + String.join(", ", Collections.nCopies(r, row));
        }
        try (Connection c = DriverManager.getConnection("jdbc:mysql://127.0.0.1:3306/test", "root", "")) {
            long t0 = System.nanoTime();
            long first = 0;
            for (int i = 0; i < n; i++) {
                try (PreparedStatement ps = c.prepareStatement(sql[i % 4], Statement.RETURN_GENERATED_KEYS)) {
                }
                if (i == 999) first = System.nanoTime() - t0;
            }
            long all = System.nanoTime() - t0;
            System.out.printf("%s: first 1000 %.1f ms, all %d %.1f ms (%.1f us each)%n", a[0], first / 1e6, n, all / 1e6, all / 1e3 / n);
        }
    }
}
