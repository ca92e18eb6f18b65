package io.github.delayqueue.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fresh enqueue run in a child JVM of its own, so the measured calls are the first thing that JVM does: no earlier
 * run, no warm-up, nothing of this process's JIT or pools. The child is this command again (same java, same JVM
 * options, same jar), with the run's one combination pinned after the given options and {@code --fresh-child}
 * naming the repetition; it prints its result as one line behind {@link #RESULT}, which this process reads and
 * reports as its own. Everything else the child prints goes to this process's stderr, so stdout stays the JSON
 * lines and the summary.
 */
final class FreshJvm {

    static final String RESULT = "bench-result: ";

    /** Appended to a fresh run's command line for its cold raw loop ({@link BenchRun#executeColdRaw}). */
    static final List<String> COLD_RAW_CHILD = List.of("--cold-raw-child", "true");

    private FreshJvm() {
    }

    /**
     * The run in a child JVM; with {@code coldRaw}, then the raw single-call loop in another child JVM, cold
     * ({@link BenchRun#executeColdRaw}), its figures and the calls' ratio to it added to the run's.
     */
    static RunResult run(String[] args, RunSpec spec, boolean coldRaw) throws Exception {
        BenchRun.log(spec.describe() + ": in a fresh JVM");
        RunResult result = child(args, spec, List.of());
        if (!coldRaw || result.error() != null) {
            return result;
        }
        BenchRun.log(spec.describe() + ": the raw loop, cold, in a fresh JVM");
        RunResult cold = child(args, spec, COLD_RAW_CHILD);
        Map<String, Object> fields = new LinkedHashMap<>(result.fields());
        cold.fields().forEach((key, value) -> {
            if (key.startsWith("raw_cold_")) {
                fields.put(key, value);
            }
        });
        if (cold.error() != null) { // the run fails with it, as the measured child's own error would
            fields.put("error", "the cold raw loop: " + cold.error());
        }
        fields.put("single_vs_raw_cold", CeilingRuns.ratio(fields.get("single_per_s"),
                fields.get("raw_cold_single_per_s")));
        return new RunResult(fields);
    }

    private static RunResult child(String[] args, RunSpec spec, List<String> extra) throws Exception {
        List<String> command = command(javaBinary(), ManagementFactory.getRuntimeMXBean().getInputArguments(),
                System.getProperty("java.class.path"), args, spec);
        command.addAll(extra);
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Thread stop = new Thread(child::destroy, "bench-fresh-jvm-stop"); // Ctrl-C: the child cleans up its own
        Runtime.getRuntime().addShutdownHook(stop);
        try {
            RunResult result = null;
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith(RESULT)) {
                        result = RunResult.parse(line.substring(RESULT.length()));
                    }
                    else {
                        System.err.println(line);
                    }
                }
            }
            int exit = child.waitFor();
            if (result == null) {
                throw new IllegalStateException("the fresh JVM exited with " + exit + " and no result");
            }
            return result;
        }
        finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stop);
            }
            catch (IllegalStateException ex) {
                // shutting down already
            }
        }
    }

    /**
     * The child's command line: java, this JVM's options (but a debugger's, whose port this JVM holds), the jar or
     * class path, the given options, then the run's combination, which wins over them.
     */
    static List<String> command(String java, List<String> jvmOptions, String classPath, String[] args, RunSpec spec) {
        List<String> command = new ArrayList<>();
        command.add(java);
        for (String option : jvmOptions) {
            if (!option.startsWith("-agentlib:jdwp") && !option.startsWith("-Xrunjdwp")) {
                command.add(option);
            }
        }
        if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
            command.add("-jar"); // the Spring Boot jar: its launcher finds the nested jars
            command.add(classPath);
        }
        else {
            command.add("-cp");
            command.add(classPath);
            command.add(BenchMain.class.getName());
        }
        command.addAll(List.of(args));
        command.addAll(pinned(spec));
        return command;
    }

    /** The options that make the child run exactly {@code spec}. */
    static List<String> pinned(RunSpec spec) {
        return List.of("--workload", spec.workload(), "--mode", spec.mode(), "--instances",
                Integer.toString(spec.instances()), "--redis", spec.redis(), "--enqueue-threads",
                Integer.toString(spec.callers()), "--jvm", spec.jvm(), "--tx", spec.tx(), "--keyed",
                Boolean.toString(spec.keyed()), "--repeat", "1", "--fresh-child", Integer.toString(spec.repetition()));
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
