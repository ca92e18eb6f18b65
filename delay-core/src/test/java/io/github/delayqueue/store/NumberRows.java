package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.List;

/** A row source for loading many test rows in one statement: the numbers from 0 as column {@code n}. */
public final class NumberRows {

    /** Digits cross-joined: a row source on MySQL 8 and MariaDB alike, without recursion limits. */
    private static final String DIGITS = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 "
            + "UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 "
            + "UNION ALL SELECT 9)";

    private static final String ALIASES = "abcefghi";

    private NumberRows() {
    }

    /** A derived table {@code seq} of the numbers 0 to 10^{@code digits} - 1 as {@code n}; filter it by {@code n}. */
    public static String upTo(int digits) {
        List<String> terms = new ArrayList<>();
        List<String> tables = new ArrayList<>();
        long scale = 1;
        for (int i = 0; i < digits; i++) {
            char alias = ALIASES.charAt(i);
            terms.add(scale == 1 ? alias + ".d" : scale + " * " + alias + ".d");
            tables.add(DIGITS + " " + alias);
            scale *= 10;
        }
        return "(SELECT " + String.join(" + ", terms) + " AS n FROM " + String.join(", ", tables) + ") seq";
    }
}
