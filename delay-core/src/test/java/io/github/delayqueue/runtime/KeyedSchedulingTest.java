package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.Scheduled.Outcome;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Keyed requests through the queue, on the in-memory store and index: what each mode answers, and the time index
 * following the row (a changed due time is re-scored, a task moved beyond the threshold leaves the index).
 */
class KeyedSchedulingTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final QueueClock clock = new QueueClock(Clock.fixed(NOW, ZoneOffset.UTC));

    private final InMemoryTaskStore store = new InMemoryTaskStore(Clock.fixed(NOW, ZoneOffset.UTC));

    private final InMemoryTimeIndex index = new InMemoryTimeIndex(1);

    private final DefaultDelayQueue queue = new DefaultDelayQueue(store, new Indexer(index, TaskEvents.NONE),
            new JacksonPayloadCodec(JsonMapper.builder().build()), 1000, Tiers.hybrid(Duration.ofMinutes(1)), clock,
            new WakeSignal(clock), TaskEvents.NONE);

    @Test
    void eachModeAnswersWhatItDidAndTheIndexFollowsTheRow() {
        Scheduled created = queue.submit(request("a", Duration.ofSeconds(10)).debounce().build());
        assertThat(created.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(indexHead()).isEqualTo(millis(10));

        assertThat(queue.submit(request("b", Duration.ofSeconds(5)).build()))
            .isEqualTo(new Scheduled(created.id(), Outcome.KEPT));
        assertThat(queue.submit(request("c", Duration.ofSeconds(20)).debounce().build()))
            .isEqualTo(new Scheduled(created.id(), Outcome.EXTENDED));
        assertThat(indexHead()).as("re-scored").isEqualTo(millis(20));
        assertThat(queue.submit(request("d", Duration.ofSeconds(15)).debounce().build()).outcome())
            .isEqualTo(Outcome.EXTENDED);
        assertThat(task(created.id()).dueAt()).as("never earlier").isEqualTo(NOW.plusSeconds(20));

        assertThat(queue.submit(request("e", Duration.ofSeconds(3)).replace().build()))
            .isEqualTo(new Scheduled(created.id(), Outcome.REPLACED));
        assertThat(indexHead()).isEqualTo(millis(3));

        assertThat(queue.submit(request("f", Duration.ofHours(2)).replace().build()).outcome())
            .isEqualTo(Outcome.REPLACED);
        assertThat(task(created.id()).status()).as("beyond the threshold").isEqualTo(TaskStatus.SCHEDULED);
        assertThat(indexHead()).as("out of the index").isNull();
    }

    @Test
    void aDebounceWithALimitRunsNoLaterThanTheFirstRequestPlusTheLimit() {
        long id = queue.schedule(request("a", Duration.ofSeconds(10)).debounce(Duration.ofSeconds(30)).build());

        queue.submit(request("b", Duration.ofSeconds(50)).debounce(Duration.ofSeconds(30)).build());

        assertThat(task(id).dueAt()).isEqualTo(NOW.plusSeconds(30));
        assertThat(indexHead()).isEqualTo(millis(30));
    }

    @Test
    void oneCallWithTheSameKeyTwiceEndsAsTheLastRequestLeavesIt() {
        List<Scheduled> answers = queue.submitAll(List.of(request("a", Duration.ofSeconds(10)).build(),
                request("b", Duration.ofSeconds(40)).debounce().build()));

        assertThat(answers).extracting(Scheduled::outcome).containsExactly(Outcome.CREATED, Outcome.EXTENDED);
        assertThat(answers.get(1).id()).isEqualTo(answers.get(0).id());
        assertThat(indexHead()).isEqualTo(millis(40));
    }

    /** More tasks than a page: every page is done, the index follows, and other prefixes and types are left. */
    @Test
    void bulkOperationsByKeyPrefixGoThroughEveryPageAndTheIndexFollows() {
        int tasks = DefaultDelayQueue.BULK_BATCH * 2 + 200;
        List<TaskRequest> requests = new java.util.ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            requests.add(TaskRequest.of("cart.expire", "p").key("user-7:" + i).delay(Duration.ofSeconds(10)).build());
        }
        requests.add(TaskRequest.of("cart.expire", "p").key("user-8:0").delay(Duration.ofSeconds(10)).build());
        requests.add(TaskRequest.of("mail.send", "p").key("user-7:0").delay(Duration.ofSeconds(10)).build());
        queue.scheduleAll(requests);

        assertThat(queue.shiftAll("cart.expire", "user-7:", Duration.ofHours(2))).isEqualTo(tasks);
        assertThat(queue.findUnstarted("cart.expire", "user-7:", null, 1).get(0).status())
            .as("beyond the threshold").isEqualTo(TaskStatus.SCHEDULED);
        assertThat(index.size(0)).as("only the other two left in the index").isEqualTo(2);

        assertThat(queue.rescheduleAll("cart.expire", "user-7:", NOW.plusSeconds(5))).isEqualTo(tasks);
        assertThat(index.size(0)).isEqualTo(tasks + 2);
        assertThat(indexHead()).isEqualTo(millis(5));

        List<Long> paged = new java.util.ArrayList<>();
        TaskView after = null;
        List<TaskView> page;
        do {
            page = queue.findUnstarted("cart.expire", "user-7:", after, 1000);
            page.forEach(task -> paged.add(task.id()));
            after = page.isEmpty() ? null : page.get(page.size() - 1);
        }
        while (page.size() == 1000);
        assertThat(paged).hasSize(tasks).doesNotHaveDuplicates();

        assertThat(queue.cancelAll("cart.expire", "user-7:")).isEqualTo(tasks);
        assertThat(queue.cancelAll("cart.expire", "user-7:")).as("none left").isZero();
        assertThat(index.size(0)).isEqualTo(2);
        assertThat(queue.find("cart.expire", "user-8:0").orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(queue.find("mail.send", "user-7:0").orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
    }

    @Test
    void bulkOperationsRefuseWhatNoTaskCanHave() {
        assertThatIllegalArgumentException().isThrownBy(() -> queue.cancelAll(" ", null))
            .withMessageContaining("type");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.cancelAll("t", "k".repeat(256)))
            .withMessageContaining("key prefix is 256 characters long");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.findUnstarted("t", null, null, 0))
            .withMessageContaining("limit must be 1 to 1000");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.shiftAll("t", null, Duration.ofDays(400_000)))
            .withMessageContaining("is too large");
    }

    @Test
    void aRequestThatChangesTheKeysTaskNeedsAKey() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> queue.schedule(TaskRequest.of("t", "p").replace().build()))
            .withMessageContaining("replace() request needs a key");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> TaskRequest.of("t", "p").debounce(Duration.ZERO))
            .withMessageContaining("maxDelay must be positive");
    }

    private static TaskRequest.Builder request(String payload, Duration delay) {
        return TaskRequest.of("cart.expire", payload).key("cart-1").delay(delay);
    }

    private TaskView task(long id) {
        return store.find(id).orElseThrow();
    }

    /** The earliest score in the index, without taking anything out. */
    private Long indexHead() {
        return index.pop(0, Long.MIN_VALUE, 1).nextDue();
    }

    private static long millis(long secondsFromNow) {
        return NOW.plusSeconds(secondsFromNow).toEpochMilli();
    }
}
