package io.github.delayqueue.bench;

import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.runtime.QueueClock;

/**
 * burst and mixed-durations: the whole plan in one {@code scheduleAll} on instance 0, due instants taken from the
 * wall clock just before (burst: all at origin + lead; mixed-durations: spread over the window after it).
 */
final class UpFrontWorkload implements Workload {

    @Override
    public void schedule(Run run, Map<String, Object> result) {
        Plan plan = run.plan;
        QueueClock clock = run.instances().clock();
        plan.place(Recorder.wallMicros());
        List<TaskRequest> requests = plan.requests(0, plan.size(), clock);
        long start = System.nanoTime();
        run.instances().queue().scheduleAll(requests);
        long end = System.nanoTime();
        long enqueuedAt = Recorder.wallMicros();
        result.put("enqueue_per_s", Stats.round(plan.size() / Ceiling.seconds(end - start)));
        result.put("enqueue_ms", Stats.round((end - start) / 1e6));
        boolean beforeDue = enqueuedAt < plan.firstDueWallMicros();
        result.put("enqueued_before_due", beforeDue);
        if (!beforeDue) {
            BenchRun.log("the tasks were still being scheduled when the first fell due; raise --lead");
        }
    }
}
