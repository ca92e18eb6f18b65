package io.github.delayqueue.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The command line. {@code --name value} or {@code --name=value}; {@code --mode}, {@code --instances},
 * {@code --workload} and {@code --rate} take comma-separated lists and the command runs every combination.
 * {@code --delay.*} and {@code --spring.*} options are passed to every instance as properties.
 */
final class BenchOptions {

    static final String USAGE = """
            java -jar delay-bench.jar [options]
              --mode hybrid|jdbc[,..]          queue mode(s) (default hybrid)
              --instances N[,..]               Spring contexts (instances) in this JVM (default 1; mixed-durations 3)
              --workload W[,..]                burst|steady|mixed|enqueue|soak|mixed-durations|bulk (default burst)
              --tasks N                        burst and enqueue size (default 20000); mixed-durations (default 1500)
              --rate R[,..]                    steady/mixed/soak/bulk tasks per second (default 200)
              --duration D                     steady/mixed scheduling window (default 30s); soak (default 10m);
                                               bulk (default 90s);
                                               mixed-durations: the window the due times spread over (default 30s)
              --repeat K                       runs per combination; the summary shows median, min, max (default 3)
              --lead D                         burst/mixed-durations: first due this long after scheduling starts
                                               (default 5s); enqueue: all due this long after the first call
                                               (default 3s); steady/mixed/soak/bulk: delay of every task (default 1s)
              --cluster-limit N                burst: every other task of a second type with clusterConcurrency N;
                                               each type's drain and lateness reported apart (default 0: one type)
              --bulk-tasks N                   bulk: tasks of another type, under one key prefix, that the bulk
                                               operations reschedule and then cancel (default 100000)
              --bulk-at D                      bulk: when the bulk operations start (default a third of --duration)
              --threads N --prefetch N --batch-size N   delay.worker.* (defaults: the starter's)
              --threshold D --migration-interval D      mixed: delay.hybrid.* (default 10s, 2s)
              --far-max D                      mixed: longest delay of the far tier (default 3 x threshold)
              --enqueue-threads N[,..]         enqueue: threads calling schedule(), each value its own run
                                               (default 16)
              --jvm fresh|warm[,..]            enqueue: fresh = the measured calls are the first thing a JVM of
                                               their own does (a child JVM per run); warm = in this JVM, after a
                                               warm-up of the same calls (default warm)
              --cold-raw true|false            enqueue fresh: also time the raw single-call loop cold, in a child
                                               JVM of its own per run (the instances started, no untimed calls
                                               first), beside the warm one (default false)
              --tx none|business-row[,..]      enqueue: each schedule() alone, or inside a Spring transaction that
                                               also inserts a row into bench_order (default none)
              --keyed false|true[,..]          enqueue: true = each call passes a key of its own (default key
                                               mode), and the raw loops insert the row with its key (default false)
              --redis single|cluster[,..]      hybrid runs against one Redis or a Redis Cluster (default single)
              --redis-cluster-nodes H:P[,..]   the cluster's seed nodes (default DELAY_TEST_REDIS_CLUSTER_NODES)
              --shards N                       delay.redis.shards of cluster runs (default 3)
              --actuator true|false            Spring Boot's actuator in the instances: meters, observations, the
                                               health indicator and the delayqueue endpoint (default: soak only)
              --preload-finished N             soak: SUCCEEDED rows, finished long ago, in the table before the run
                                               (default 5000000)
              --preload-future N               soak: SCHEDULED rows due days ahead in the table before the run
                                               (default 1000000)
              --retention D                    soak: delay.retention.succeeded (default 1m)
              --report-every D                 soak: length of one reported interval (default 1m)
              --slow-every N --slow-for D --fast-for D   mixed-durations: every Nth handler takes slow-for, the
                                               others fast-for (default 40, 10s, 3ms)
              --ceiling true|false             measure the raw SQL/Lua ceiling in each run (default true; never
                                               for soak and mixed-durations)
              --ceiling-batch N                rows per raw claim (default min(threads + prefetch, batch-size))
              --warmup N                       tasks run (and not measured) before each run's workload (default
                                               1000); enqueue warm: calls made before the measured ones (default
                                               --tasks); enqueue fresh: none, whatever this says
              --timeout D                      give up waiting for tasks after this long without progress (default 60s)
              --client-counts true|false       count JDBC statements and Redis commands in the client, time claims
                                               and count purged rows (default true; soak always does: its rows
                                               and purge figures come from them)
              --out FILE                       also append the JSON lines to FILE
              --fail-on-loss true|false        exit 1 when a run has duplicates, losses or early starts (default true)
              --delay.x=y --spring.x=y         any property, for every instance
            Servers: --spring.datasource.url/username/password and --spring.data.redis.url, else the
            DELAY_TEST_JDBC_URL/_USER/_PASSWORD and DELAY_TEST_REDIS_URL variables, else 127.0.0.1:3306 (root, no
            password) and 127.0.0.1:6379. Each run creates its own database and Redis key prefix and removes them.""";

    static final List<String> WORKLOADS = List.of("burst", "steady", "mixed", "enqueue", "soak", "mixed-durations",
            "bulk");

    static final String FRESH = "fresh";

    static final String WARM = "warm";

    static final String TX_NONE = "none";

    static final String TX_BUSINESS_ROW = "business-row";

    List<String> modes = List.of("hybrid");

    /** As given; {@link #instances(String)} applies the per-workload default. */
    List<Integer> instances;

    List<String> workloads = List.of("burst");

    List<Integer> rates = List.of(200);

    /** As given; {@link #tasks(String)} applies the per-workload default. */
    Integer tasks;

    /** As given; {@link #duration(String)} applies the per-workload default. */
    Duration duration;

    int repeat = 3;

    /** As given; {@link #lead(String)} applies the per-workload default. */
    Duration lead;

    Integer threads;

    Integer prefetch;

    Integer batchSize;

    Duration threshold = Duration.ofSeconds(10);

    Duration migrationInterval = Duration.ofSeconds(2);

    Duration farMax;

    List<Integer> enqueueThreads = List.of(16);

    List<String> jvms = List.of(WARM);

    List<String> txs = List.of(TX_NONE);

    /** enqueue: whether each call passes a key of its own. */
    List<Boolean> keyeds = List.of(false);

    List<String> redis = List.of("single");

    String redisClusterNodes;

    int shards = 3;

    Boolean actuator;

    long preloadFinished = 5_000_000;

    long preloadFuture = 1_000_000;

    Duration retention = Duration.ofMinutes(1);

    Duration reportEvery = Duration.ofMinutes(1);

    int slowEvery = 40;

    Duration slowFor = Duration.ofSeconds(10);

    Duration fastFor = Duration.ofMillis(3);

    boolean ceiling = true;

    Integer ceilingBatch;

    Duration timeout = Duration.ofSeconds(60);

    /** As given; {@link #warmup(String)} applies the per-workload default. */
    Integer warmup;

    /**
     * Set only in the child JVM a fresh enqueue run starts ({@link FreshJvm}): the repetition it makes. The child
     * runs the one combination its command line pins and prints nothing but that run's result.
     */
    Integer freshChild;

    /** enqueue fresh: whether each run also times the raw single-call loop cold, in a child JVM of its own. */
    boolean coldRaw;

    /** Set only in the child JVM that times the cold raw loop ({@link BenchRun#executeColdRaw}). */
    boolean coldRawChild;

    boolean clientCounts = true;

    int bulkTasks = 100_000;

    /** As given; {@link #bulkAt(String)} applies the default. */
    Duration bulkAt;

    /** burst: half the tasks of a second type with this {@code clusterConcurrency}; 0 for one type, no limit. */
    int clusterLimit;

    String out;

    boolean failOnLoss = true;

    final Map<String, String> properties = new LinkedHashMap<>();

    static BenchOptions parse(String... args) {
        BenchOptions options = new BenchOptions();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                throw new UsageException(null);
            }
            if (!arg.startsWith("--")) {
                throw new UsageException("Unexpected argument '" + arg + "'");
            }
            String name;
            String value;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(2, eq);
                value = arg.substring(eq + 1);
            }
            else {
                name = arg.substring(2);
                if (i + 1 >= args.length) {
                    throw new UsageException("Option --" + name + " needs a value");
                }
                value = args[++i];
            }
            options.set(name, value);
        }
        options.validate();
        return options;
    }

    private void set(String name, String value) {
        if (name.startsWith("delay.") || name.startsWith("spring.") || name.startsWith("logging.")) {
            properties.put(name, value);
            return;
        }
        switch (name) {
            case "mode" -> modes = list(value, v -> {
                String mode = v.toLowerCase(Locale.ROOT);
                if (!mode.equals("hybrid") && !mode.equals("jdbc")) {
                    throw new UsageException("--mode takes hybrid or jdbc, not '" + v + "'");
                }
                return mode;
            });
            case "instances" -> instances = list(value, v -> positive("instances", v));
            case "workload" -> workloads = list(value, v -> {
                String workload = v.toLowerCase(Locale.ROOT);
                if (!WORKLOADS.contains(workload)) {
                    throw new UsageException("--workload takes " + String.join(", ", WORKLOADS) + ", not '" + v + "'");
                }
                return workload;
            });
            case "rate" -> rates = list(value, v -> positive("rate", v));
            case "tasks" -> tasks = positive("tasks", value);
            case "duration" -> duration = duration("duration", value);
            case "repeat" -> repeat = positive("repeat", value);
            case "lead" -> lead = duration("lead", value);
            case "threads" -> threads = positive("threads", value);
            case "prefetch" -> prefetch = nonNegative("prefetch", value);
            case "batch-size" -> batchSize = positive("batch-size", value);
            case "threshold" -> threshold = duration("threshold", value);
            case "migration-interval" -> migrationInterval = duration("migration-interval", value);
            case "far-max" -> farMax = duration("far-max", value);
            case "enqueue-threads" -> enqueueThreads = list(value, v -> positive("enqueue-threads", v));
            case "jvm" -> jvms = list(value, v -> oneOf("jvm", v, FRESH, WARM));
            case "tx" -> txs = list(value, v -> oneOf("tx", v, TX_NONE, TX_BUSINESS_ROW));
            case "keyed" -> keyeds = list(value, v -> bool("keyed", v));
            case "fresh-child" -> freshChild = positive("fresh-child", value);
            case "cold-raw" -> coldRaw = bool("cold-raw", value);
            case "cold-raw-child" -> coldRawChild = bool("cold-raw-child", value);
            case "redis" -> redis = list(value, v -> {
                String redis = v.toLowerCase(Locale.ROOT);
                if (!redis.equals("single") && !redis.equals("cluster")) {
                    throw new UsageException("--redis takes single or cluster, not '" + v + "'");
                }
                return redis;
            });
            case "redis-cluster-nodes" -> redisClusterNodes = value.trim();
            case "shards" -> shards = positive("shards", value);
            case "actuator" -> actuator = bool("actuator", value);
            case "preload-finished" -> preloadFinished = nonNegativeLong("preload-finished", value);
            case "preload-future" -> preloadFuture = nonNegativeLong("preload-future", value);
            case "retention" -> retention = positiveDuration("retention", value);
            case "report-every" -> reportEvery = positiveDuration("report-every", value);
            case "slow-every" -> slowEvery = positive("slow-every", value);
            case "slow-for" -> slowFor = duration("slow-for", value);
            case "fast-for" -> fastFor = duration("fast-for", value);
            case "ceiling" -> ceiling = bool("ceiling", value);
            case "ceiling-batch" -> ceilingBatch = positive("ceiling-batch", value);
            case "timeout" -> timeout = duration("timeout", value);
            case "warmup" -> warmup = nonNegative("warmup", value);
            case "client-counts" -> clientCounts = bool("client-counts", value);
            case "bulk-tasks" -> bulkTasks = positive("bulk-tasks", value);
            case "bulk-at" -> bulkAt = duration("bulk-at", value);
            case "cluster-limit" -> clusterLimit = nonNegative("cluster-limit", value);
            case "out" -> out = value;
            case "fail-on-loss" -> failOnLoss = bool("fail-on-loss", value);
            default -> throw new UsageException("Unknown option --" + name);
        }
    }

    private void validate() {
        if (farMax != null && farMax.compareTo(threshold) <= 0) {
            throw new UsageException("--far-max (" + farMax + ") must be longer than --threshold (" + threshold + ")");
        }
        if (migrationInterval.compareTo(threshold) >= 0) {
            throw new UsageException("--migration-interval must be shorter than --threshold");
        }
        if (workloads.contains("bulk") && bulkAt("bulk").compareTo(duration("bulk")) >= 0) {
            throw new UsageException("--bulk-at (" + bulkAt("bulk") + ") must be within --duration ("
                    + duration("bulk") + ")");
        }
        if (clusterLimit > 0 && !workloads.contains("burst")) {
            throw new UsageException("--cluster-limit applies to the burst workload only");
        }
        if (workloads.contains("mixed-durations") && tasks(("mixed-durations")) < slowEvery) {
            throw new UsageException("--tasks must be at least --slow-every (" + slowEvery + ") for mixed-durations");
        }
    }

    /** Instances per run: the option, else 3 for mixed-durations (the case) and 1 for the rest. */
    List<Integer> instances(String workload) {
        return instances != null ? instances : List.of(workload.equals("mixed-durations") ? 3 : 1);
    }

    /** Tasks of a burst, enqueue or mixed-durations run. */
    int tasks(String workload) {
        return tasks != null ? tasks : workload.equals("mixed-durations") ? 1500 : 20_000;
    }

    /** How long a steady, mixed, soak or bulk run schedules, or the window mixed-durations' due times spread over. */
    Duration duration(String workload) {
        if (duration != null) {
            return duration;
        }
        return switch (workload) {
            case "soak" -> Duration.ofMinutes(10);
            case "bulk" -> Duration.ofSeconds(90);
            default -> Duration.ofSeconds(30);
        };
    }

    /** bulk: when the bulk operations start after the stream's origin: the option, else a third of the duration. */
    Duration bulkAt(String workload) {
        return bulkAt != null ? bulkAt : duration(workload).dividedBy(3);
    }

    /** Burst and mixed-durations: from the scheduling to the first due time; the others: every task's delay. */
    Duration lead(String workload) {
        if (lead != null) {
            return lead;
        }
        return switch (workload) {
            case "burst", "mixed-durations" -> Duration.ofSeconds(5);
            case "enqueue" -> Duration.ofSeconds(3);
            default -> Duration.ofSeconds(1);
        };
    }

    /**
     * Tasks run before the measurement: the option, else for enqueue as many calls as the measured ones (a JIT
     * warms up over thousands of calls, not a few hundred), else 1,000.
     */
    int warmup(String workload) {
        return warmup != null ? warmup : workload.equals("enqueue") ? tasks(workload) : 1000;
    }

    /** Whether this process is the child JVM of a fresh run. */
    boolean isFreshChild() {
        return freshChild != null;
    }

    /** Whether the instances get the actuator's meters, health and endpoint: the option, else only for soak. */
    boolean actuator(String workload) {
        return actuator != null ? actuator : workload.equals("soak");
    }

    /** The raw ceiling says nothing about a run paced by its producer or its handlers' own time. */
    boolean ceiling(String workload) {
        return ceiling && !workload.equals("soak") && !workload.equals("mixed-durations") && !workload.equals("bulk");
    }

    /** The soak's rows, purges and claim times come from the client-side proxy, so it always counts. */
    boolean clientCounts(String workload) {
        return clientCounts || workload.equals("soak");
    }

    /** Whether the workload schedules at a rate (so {@code --rate} is one of its dimensions). */
    static boolean paced(String workload) {
        return workload.equals("steady") || workload.equals("mixed") || workload.equals("soak")
                || workload.equals("bulk");
    }

    /** The worker threads the instances run with: the option, else a {@code delay.worker.threads} property, else 8. */
    int effectiveThreads() {
        return threads != null ? threads : intProperty("delay.worker.threads", 8);
    }

    int effectivePrefetch() {
        return prefetch != null ? prefetch : intProperty("delay.worker.prefetch", 512);
    }

    int effectiveBatchSize() {
        return batchSize != null ? batchSize : intProperty("delay.worker.batch-size", 500);
    }

    /** Rows per raw claim: what one library claim takes at most. */
    int effectiveCeilingBatch() {
        return ceilingBatch != null ? ceilingBatch
                : Math.min(effectiveThreads() + effectivePrefetch(), effectiveBatchSize());
    }

    Duration effectiveFarMax() {
        return farMax != null ? farMax : threshold.multipliedBy(3);
    }

    private int intProperty(String name, int fallback) {
        String value = properties.get(name);
        return value == null ? fallback : Integer.parseInt(value.trim());
    }

    private interface Parser<T> {
        T parse(String value);
    }

    private static <T> List<T> list(String value, Parser<T> parser) {
        List<T> values = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                values.add(parser.parse(part.trim()));
            }
        }
        if (values.isEmpty()) {
            throw new UsageException("Empty list: '" + value + "'");
        }
        return List.copyOf(values);
    }

    private static String oneOf(String name, String value, String... allowed) {
        String v = value.toLowerCase(Locale.ROOT);
        if (!List.of(allowed).contains(v)) {
            throw new UsageException("--" + name + " takes " + String.join(" or ", allowed) + ", not '" + value + "'");
        }
        return v;
    }

    private static int positive(String name, String value) {
        int parsed = integer(name, value);
        if (parsed < 1) {
            throw new UsageException("--" + name + " must be at least 1: " + value);
        }
        return parsed;
    }

    private static int nonNegative(String name, String value) {
        int parsed = integer(name, value);
        if (parsed < 0) {
            throw new UsageException("--" + name + " must not be negative: " + value);
        }
        return parsed;
    }

    private static long nonNegativeLong(String name, String value) {
        try {
            long parsed = Long.parseLong(value.trim().replace("_", ""));
            if (parsed < 0) {
                throw new UsageException("--" + name + " must not be negative: " + value);
            }
            return parsed;
        }
        catch (NumberFormatException ex) {
            throw new UsageException("--" + name + " takes a whole number, not '" + value + "'");
        }
    }

    private static Duration positiveDuration(String name, String value) {
        Duration parsed = duration(name, value);
        if (parsed.isZero() || parsed.isNegative()) {
            throw new UsageException("--" + name + " must be longer than zero: " + value);
        }
        return parsed;
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value.trim().replace("_", ""));
        }
        catch (NumberFormatException ex) {
            throw new UsageException("--" + name + " takes a whole number, not '" + value + "'");
        }
    }

    private static boolean bool(String name, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new UsageException("--" + name + " takes true or false, not '" + value + "'");
        };
    }

    /** {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or ISO-8601. */
    static Duration duration(String name, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.startsWith("pt") || v.startsWith("p")) {
                return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
            }
            for (String unit : Arrays.asList("ms", "s", "m", "h")) {
                if (v.endsWith(unit)) {
                    long amount = Long.parseLong(v.substring(0, v.length() - unit.length()).trim());
                    return switch (unit) {
                        case "ms" -> Duration.ofMillis(amount);
                        case "s" -> Duration.ofSeconds(amount);
                        case "m" -> Duration.ofMinutes(amount);
                        default -> Duration.ofHours(amount);
                    };
                }
            }
            return Duration.ofMillis(Long.parseLong(v));
        }
        catch (RuntimeException ex) {
            throw new UsageException("--" + name + " takes a duration such as 500ms, 30s or 2m, not '" + value + "'");
        }
    }

    /** A bad command line: the message, then the usage. */
    static final class UsageException extends RuntimeException {

        UsageException(String message) {
            super(message);
        }
    }
}
