package io.github.delayqueue.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark command: runs every requested combination of workload, mode, instances, rate, Redis setup and
 * variant {@code --repeat} times ({@link RunSpec#expand}), prints one JSON object per run on stdout and then the
 * summary tables. Exits 1 when a run lost, duplicated or started early a task, or failed.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        }
        catch (BenchOptions.UsageException ex) {
            if (ex.getMessage() != null) {
                System.err.println(ex.getMessage());
            }
            System.err.println(BenchOptions.USAGE);
            System.exit(ex.getMessage() == null ? 0 : 2);
            return;
        }
        System.exit(run(options, args) ? 0 : 1);
    }

    static boolean run(BenchOptions options, String[] args) {
        PrintStream out = System.out;
        Servers servers = Servers.resolve(options.properties, options.redisClusterNodes, System.getenv());
        if (options.isFreshChild()) {
            return runFreshChild(options, servers, out);
        }
        if (options.redis.contains("cluster") && servers.redisClusterNodes.isEmpty()) {
            System.err.println("--redis cluster needs --redis-cluster-nodes or DELAY_TEST_REDIS_CLUSTER_NODES");
            return false;
        }
        String commit = commit();
        out.println("# delay-bench: commit " + commit + ", " + OffsetDateTime.now(ZoneOffset.UTC)
            .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        out.println("# command: java -jar delay-bench.jar " + String.join(" ", args));
        out.println("# machine: " + machine());
        out.println("# servers: " + servers);
        Map<String, String> facts = servers.describe();
        out.println("# server settings: " + facts);
        out.println("# load average before: " + Machine.loadAverage());
        out.flush();

        List<RunResult> results = new ArrayList<>();
        boolean ok = true;
        for (RunSpec spec : RunSpec.expand(options)) {
            BenchRun run = new BenchRun(options, servers, spec);
            RunResult result;
            try {
                result = (spec.fresh() ? FreshJvm.run(args, spec, options.coldRaw) : run.execute()).withCommit(commit);
                if (result.error() != null) {
                    ok = false;
                    System.err.println("[bench] " + run.describe() + " failed: " + result.error());
                }
                else if (result.failed()) {
                    ok = ok && !options.failOnLoss;
                    System.err.println("[bench] " + run.describe() + ": " + result.duplicates() + " duplicate(s), "
                            + result.lost() + " lost, " + result.startedEarly() + " started early"
                            + (result.bulkMismatch() > 0 ? ", " + result.bulkMismatch() + " bulk mismatch(es)" : ""));
                }
                results.add(result);
            }
            catch (Exception | Error ex) {
                ok = false;
                System.err.println("[bench] " + run.describe() + " failed:");
                ex.printStackTrace();
                result = RunResult.failure(spec, ex).withCommit(commit);
            }
            String line = result.json();
            out.println(line);
            out.flush();
            append(options.out, line);
        }
        out.println();
        out.println("# load average after: " + Machine.loadAverage());
        out.println(Summary.render(results));
        out.flush();
        return ok;
    }

    /**
     * The child JVM of a fresh run: its one run, the result behind {@link FreshJvm#RESULT} on stdout, nothing else
     * there (the parent prints the headers and the summary). Fails only when the run itself failed.
     */
    private static boolean runFreshChild(BenchOptions options, Servers servers, PrintStream out) {
        boolean ok = true;
        for (RunSpec spec : RunSpec.expand(options)) {
            RunResult result;
            try {
                BenchRun run = new BenchRun(options, servers, spec);
                result = options.coldRawChild ? run.executeColdRaw() : run.execute();
            }
            catch (Exception | Error ex) {
                ok = false;
                System.err.println("[bench] " + spec.describe() + " failed in the fresh JVM:");
                ex.printStackTrace();
                result = RunResult.failure(spec, ex);
            }
            out.println(FreshJvm.RESULT + result.json());
            out.flush();
        }
        return ok;
    }

    private static void append(String file, String line) {
        if (file == null) {
            return;
        }
        try {
            Files.writeString(Path.of(file), line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        catch (IOException ex) {
            System.err.println("[bench] could not append to " + file + ": " + ex.getMessage());
        }
    }

    /** The commit of the working directory's repository, with a note when the library's sources differ from it. */
    static String commit() {
        String head = git("rev-parse", "--short=12", "HEAD");
        if (head == null || head.isBlank()) {
            return "unknown (not run from the delay repository)";
        }
        String dirty = git("status", "--porcelain", "--untracked-files=all", "--", "delay-autoconfigure",
                "delay-starter", "pom.xml");
        return head.trim() + (dirty == null || dirty.isBlank() ? ""
                : " + uncommitted changes in delay-autoconfigure/delay-starter (" + dirty.lines().count() + " files)");
    }

    private static String git(String... args) {
        List<String> command = new ArrayList<>();
        command.add("git");
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                return null;
            }
            return output;
        }
        catch (IOException ex) {
            return null;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static String machine() {
        String cpu = "?";
        String memory = "?";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    memory = (kb / 1024 / 1024) + " GiB";
                    break;
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // not Linux; the core count below still says something
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + memory + " RAM, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
                + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")";
    }
}
