package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * One run's result, as it leaves the run: its figures in the order its JSON line prints them (the fields "Reading a
 * run" in the README describes), and the combination and the verdict read back by name in this class alone: the
 * command's exit code and the summary's grouping go through the accessors. The figures stay a map because they are
 * the JSON line, which is also how a fresh run's result crosses from its child JVM ({@link #parse}); the summary's
 * columns name them ({@link #get}).
 *
 * @param fields the figures by JSON field name, in print order
 */
record RunResult(Map<String, Object> fields) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    RunResult {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** The result of a run that threw: its combination and the error, nothing measured. */
    static RunResult failure(RunSpec spec, Throwable ex) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("workload", spec.workload());
        result.put("mode", spec.mode());
        result.put("instances", spec.instances());
        if (spec.callers() > 0) {
            result.put("enqueue_threads", spec.callers());
            result.put("jvm", spec.jvm());
            result.put("tx", spec.tx());
            result.put("keyed", spec.keyed());
        }
        result.put("repetition", spec.repetition());
        result.put("error", String.valueOf(ex));
        return new RunResult(result);
    }

    /** A result printed by {@link #json}, as a fresh child JVM prints its own. */
    @SuppressWarnings("unchecked")
    static RunResult parse(String json) {
        return new RunResult(JSON.readValue(json, Map.class));
    }

    /** The same result with the commit measured added last. */
    RunResult withCommit(String commit) {
        Map<String, Object> copy = new LinkedHashMap<>(fields);
        copy.put("commit", commit);
        return new RunResult(copy);
    }

    /** One JSON object; figures that are not numbers (NaN, infinite) print as {@code null}. */
    String json() {
        return JSON.writeValueAsString(clean(fields));
    }

    /** A figure by its JSON field name, {@code null} where the run has none. */
    Object get(String field) {
        return fields.get(field);
    }

    String workload() {
        return String.valueOf(fields.get("workload"));
    }

    String mode() {
        return String.valueOf(fields.get("mode"));
    }

    /** The mode, with the Redis setup when it is not the default one server. */
    String modeLabel() {
        if ("cluster".equals(fields.get("redis"))) {
            return mode() + " (cluster, " + fields.get("shards") + " shards)";
        }
        return mode();
    }

    int instances() {
        return fields.get("instances") instanceof Number n ? n.intValue() : 0;
    }

    /** The enqueue workload's calling threads; {@code null} for the other workloads. */
    Integer enqueueThreads() {
        return fields.get("enqueue_threads") instanceof Number n ? n.intValue() : null;
    }

    /** The paced workloads' rate; {@code null} for the others. */
    Integer rate() {
        return fields.get("rate") instanceof Number n ? n.intValue() : null;
    }

    /** The variant's name, {@code ""} for none. */
    String variant() {
        return String.valueOf(fields.getOrDefault("variant", ""));
    }

    boolean hasVariant() {
        return fields.containsKey("variant");
    }

    /** The enqueue workload's JVM, {@code fresh} or {@code warm}; {@code null} for the others. */
    Object jvm() {
        return fields.get("jvm");
    }

    /** The enqueue workload's transaction, {@code none} or {@code business-row}; {@code null} for the others. */
    Object tx() {
        return fields.get("tx");
    }

    /** The enqueue workload's keys: whether each call passed a key of its own; false for the others. */
    boolean keyed() {
        return Boolean.TRUE.equals(fields.get("keyed"));
    }

    Object repetition() {
        return fields.get("repetition");
    }

    /** What the repetitions of one combination share: the summary gives them one row. */
    String combination() {
        return workload() + "|" + modeLabel() + "|" + fields.get("instances") + "|" + fields.get("rate") + "|"
                + variant() + "|" + fields.get("enqueue_threads") + "|" + jvm() + "|" + tx() + "|" + keyed();
    }

    /** Why the run failed, {@code null} if it ran to the end. */
    Object error() {
        return fields.get("error");
    }

    long duplicates() {
        return count("duplicates");
    }

    long lost() {
        return count("lost");
    }

    long startedEarly() {
        return count("started_early");
    }

    /** bulk: tasks its bulk operations changed wrongly (or not), or that ran; 0 for the other workloads. */
    long bulkMismatch() {
        return count("bulk_mismatch");
    }

    /**
     * Whether the outcome fails the command: a task lost, run twice, or started before its due time, or a bulk
     * operation that changed other tasks than those under its prefix.
     */
    boolean failed() {
        return duplicates() > 0 || lost() > 0 || startedEarly() > 0 || bulkMismatch() > 0;
    }

    /** A count the run reported (always whole), 0 where it reported none. */
    private long count(String field) {
        return fields.get(field) instanceof Number n ? n.longValue() : 0;
    }

    @SuppressWarnings("unchecked")
    private static Object clean(Object value) {
        if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
            return null;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            ((Map<String, Object>) map).forEach((k, v) -> copy.put(k, clean(v)));
            return copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            list.forEach(v -> copy.add(clean(v)));
            return copy;
        }
        return value;
    }
}
