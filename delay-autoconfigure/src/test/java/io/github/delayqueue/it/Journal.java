package io.github.delayqueue.it;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskContext;
import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/**
 * Where test handlers write down every start, outside the queue: which task, on which instance, when, which
 * attempt. Tests assert on it: nothing lost, nothing run twice, nothing early. An instance in another JVM writes its
 * journal to a file as it goes (one {@code write} per line, so a SIGKILL loses nothing written), and the test
 * {@link #merge merges} it.
 */
public final class Journal {

    /** One handler start; {@link #endedAt()} is set when the handler returns or throws. */
    public static final class Start {

        private final long taskId;

        private final String instance;

        private final long startedAt;

        private final long dueAt;

        private final int attempt;

        private final Object payload;

        private volatile long endedAt = Long.MAX_VALUE;

        private volatile boolean interrupted;

        private @Nullable Journal journal;

        Start(long taskId, String instance, long startedAt, long dueAt, int attempt, Object payload) {
            this.taskId = taskId;
            this.instance = instance;
            this.startedAt = startedAt;
            this.dueAt = dueAt;
            this.attempt = attempt;
            this.payload = payload;
        }

        public long taskId() {
            return taskId;
        }

        public String instance() {
            return instance;
        }

        public long startedAt() {
            return startedAt;
        }

        public long dueAt() {
            return dueAt;
        }

        public int attempt() {
            return attempt;
        }

        public Object payload() {
            return payload;
        }

        /** When the handler returned or threw; {@code Long.MAX_VALUE} while it runs (or if it never ended). */
        public long endedAt() {
            return endedAt;
        }

        /** Whether the handler ended because it was interrupted (see {@link #endInterrupted()}). */
        public boolean interrupted() {
            return interrupted;
        }

        public void end() {
            endedAt = System.currentTimeMillis();
            if (journal != null) {
                journal.write("E " + taskId + " " + startedAt + " " + endedAt + (interrupted ? " I" : ""));
            }
        }

        /** Ends a run that stopped because its thread was interrupted (the lease guard, a shutdown timeout). */
        public void endInterrupted() {
            interrupted = true;
            end();
        }
    }

    private final Map<Long, List<Start>> starts = new ConcurrentHashMap<>();

    private final List<Start> all = new CopyOnWriteArrayList<>();

    private final @Nullable OutputStream file;

    public Journal() {
        this.file = null;
    }

    /** A journal that also appends every start and end to {@code file}. */
    public Journal(Path file) {
        try {
            this.file = new FileOutputStream(file.toFile(), true);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Writes down a start; call {@link Start#end()} on the result when the handler is done. */
    public Start record(String instance, TaskContext context, Object payload) {
        Start start = new Start(context.id(), instance, System.currentTimeMillis(), context.dueAt().toEpochMilli(),
                context.attempt(), payload);
        add(start);
        if (file != null) {
            start.journal = this;
            write("S " + start.taskId + " " + instance + " " + start.startedAt + " " + start.dueAt + " "
                    + start.attempt);
        }
        return start;
    }

    /** Adds a run as another journal or the test itself knows it, for a verdict over several sources. */
    public void addRun(long taskId, String instance, long startedAt, long endedAt, long dueAt, int attempt) {
        Start start = new Start(taskId, instance, startedAt, dueAt, attempt, "");
        start.endedAt = endedAt;
        add(start);
    }

    private void add(Start start) {
        starts.computeIfAbsent(start.taskId, id -> new CopyOnWriteArrayList<>()).add(start);
        all.add(start);
    }

    private synchronized void write(String line) {
        try {
            file.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Adds the starts and ends another JVM wrote to {@code file}; payloads are not kept there. A start without an end
     * ended when that JVM died, at {@code diedAt} at the latest.
     */
    public void merge(Path file, long diedAt) throws IOException {
        Map<String, Start> byStart = new java.util.HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] f = line.split(" ");
            if (f[0].equals("S")) {
                Start start = new Start(Long.parseLong(f[1]), f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
                        Integer.parseInt(f[5]), "");
                byStart.put(f[1] + " " + f[3], start);
                add(start);
            }
            else if (f[0].equals("E")) {
                Start start = byStart.get(f[1] + " " + f[2]);
                start.endedAt = Long.parseLong(f[3]);
                start.interrupted = f.length > 4 && f[4].equals("I");
            }
        }
        byStart.values().forEach(start -> start.endedAt = Math.min(start.endedAt, diedAt));
    }

    /** Task ids that have at least one start. */
    public java.util.Set<Long> startedIds() {
        return java.util.Set.copyOf(starts.keySet());
    }

    public List<Start> startsOf(long taskId) {
        return starts.getOrDefault(taskId, List.of());
    }

    public int distinctTasks() {
        return starts.size();
    }

    public int totalStarts() {
        return all.size();
    }

    public List<Start> all() {
        return new ArrayList<>(all);
    }

    public void awaitStarted(long taskId, long seconds) {
        await().atMost(seconds, TimeUnit.SECONDS).pollInterval(10, TimeUnit.MILLISECONDS)
            .until(() -> !startsOf(taskId).isEmpty());
    }

    public void awaitDistinct(int count, long seconds) {
        await().atMost(seconds, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS)
            .until(() -> distinctTasks() >= count);
    }
}
