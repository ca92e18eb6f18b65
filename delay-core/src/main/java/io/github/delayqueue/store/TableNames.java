package io.github.delayqueue.store;

import java.util.regex.Pattern;

/**
 * The rules for the names of the queue's tables, in one place. MySQL 8 and MariaDB allow identifiers of 64
 * characters; the queue derives index names ({@code <table>_type_key}, {@code <table>_status_due},
 * {@code <table>_status_type_due}, the longest, which its claims name), the table of paused types
 * ({@code <table>_paused_types}), that of the cluster-wide limits ({@code <table>_type_limits}) and the default
 * schema-history table ({@code <table>_schema_history})
 * from the task table's name, so that name leaves room for a
 * suffix of up to {@link #DERIVED_SUFFIX_ROOM} characters. Names are quoted in every statement, so a reserved word
 * ({@code order}) works like any other name.
 */
public final class TableNames {

    /** Longest identifier MySQL 8 and MariaDB accept. */
    public static final int MAX_IDENTIFIER_LENGTH = 64;

    /** Characters kept free for the suffixes of names derived from the task table's name. */
    public static final int DERIVED_SUFFIX_ROOM = 16;

    /** Longest task table name: what leaves room for every derived name. */
    public static final int MAX_TASK_TABLE_LENGTH = MAX_IDENTIFIER_LENGTH - DERIVED_SUFFIX_ROOM;

    private static final String HISTORY_SUFFIX = "_schema_history";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private TableNames() {
    }

    /** Letters, digits and underscores, not starting with a digit, at most {@value #MAX_TASK_TABLE_LENGTH}. */
    public static boolean isValidTaskTable(String name) {
        return name.length() <= MAX_TASK_TABLE_LENGTH && NAME.matcher(name).matches();
    }

    /** Letters, digits and underscores, not starting with a digit, at most {@value #MAX_IDENTIFIER_LENGTH}. */
    public static boolean isValidHistoryTable(String name) {
        return name.length() <= MAX_IDENTIFIER_LENGTH && NAME.matcher(name).matches();
    }

    /**
     * The task table's name, checked: what the store, the inspector and the schema all do before they use it.
     *
     * @throws IllegalArgumentException naming the rule the name breaks
     */
    static String requireValidTaskTable(String name) {
        if (!isValidTaskTable(name)) {
            throw new IllegalArgumentException("Invalid task table name '" + name + "': use letters, digits and "
                    + "underscores, at most " + MAX_TASK_TABLE_LENGTH + " characters");
        }
        return name;
    }

    /** The schema-history table a task table gets unless one is configured: its own, so none is ever shared. */
    public static String defaultHistoryTable(String taskTable) {
        return taskTable + HISTORY_SUFFIX;
    }

    /** The table of the types paused on every instance: the task table's name with {@code _paused_types}. */
    static String pausedTypesTable(String taskTable) {
        return taskTable + "_paused_types";
    }

    /** The table of the cluster-wide limits' locks and start counts: the task table's name and {@code _type_limits}. */
    static String typeLimitsTable(String taskTable) {
        return taskTable + "_type_limits";
    }

    /** The index the claims of some types read, one range per type (V6): named in their statements. */
    static String typeDueIndex(String taskTable) {
        return taskTable + "_status_type_due";
    }

    /** The name as a quoted identifier; only for names that passed validation, which cannot contain a backtick. */
    static String quoted(String name) {
        return "`" + name + "`";
    }
}
