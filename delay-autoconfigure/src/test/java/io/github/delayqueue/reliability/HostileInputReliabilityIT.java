package io.github.delayqueue.reliability;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 6: hostile input. Every value either works or is refused with an {@link IllegalArgumentException} that
 * says why; nothing corrupts the table or stops the poller; handlers that throw an {@link Error}, block forever or
 * interrupt their own thread do not take the worker pool down.
 */
@Tag("reliability")
class HostileInputReliabilityIT {

    private final Journal journal = new Journal();

    private Instances instances;

    private DelayQueue queue;

    @BeforeEach
    void start() {
        instances = new Instances(ReliabilityApp.class, journal, "delay.payload.max-size=10KB",
                "delay.worker.threads=3", "delay.worker.prefetch=0", "delay.worker.shutdown-timeout=1s");
        queue = instances.start().getBean(DelayQueue.class);
    }

    @AfterEach
    void close() {
        instances.close();
    }

    private TaskView awaitFinished(long id) {
        await().atMost(15, TimeUnit.SECONDS).pollInterval(20, TimeUnit.MILLISECONDS)
            .until(() -> !queue.find(id).orElseThrow().status().isPending()
                    && queue.find(id).orElseThrow().status() != TaskStatus.RUNNING);
        return queue.find(id).orElseThrow();
    }

    private void assertThePollerStillWorks() {
        long probe = queue.schedule("rel.any", "still alive", Duration.ZERO);
        assertThat(awaitFinished(probe).status()).isEqualTo(TaskStatus.SUCCEEDED);
    }

    @Test
    void payloadsOfEveryJsonShapeRoundTrip() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("list", List.of(1, "two", 3.5, true));
        nested.put("map", Map.of("k", Map.of("deeper", List.of())));
        nested.put("nothing", null);
        Object deep = "bottom";
        for (int i = 0; i < 100; i++) {
            deep = List.of(deep);
        }
        List<Object> payloads = new ArrayList<>(List.of("", "plain", "quote \" backslash \\ newline \n tab \t",
                "emoji 😀 and 漢字 and ü", "\u0000 NUL inside", 42, -7L, new BigDecimal("12345678901234567890.123"),
                true, List.of(), Map.of(), nested, deep, "x".repeat(10 * 1024 - 2)));
        payloads.add(null);
        List<Long> ids = new ArrayList<>();
        for (Object payload : payloads) {
            ids.add(queue.schedule("rel.any", payload, Duration.ZERO));
        }
        for (int i = 0; i < ids.size(); i++) {
            assertThat(awaitFinished(ids.get(i)).status()).as("payload %d", i).isEqualTo(TaskStatus.SUCCEEDED);
        }
        assertThat(journal.startsOf(ids.get(4)).get(0).payload()).isEqualTo("\u0000 NUL inside");
        assertThat(journal.startsOf(ids.get(3)).get(0).payload()).isEqualTo("emoji 😀 and 漢字 and ü");
        assertThat(journal.startsOf(ids.get(payloads.size() - 1)).get(0).payload()).isEqualTo("null");
        long typedNull = queue.schedule("rel.typed", null, Duration.ZERO);
        assertThat(awaitFinished(typedNull).status()).isEqualTo(TaskStatus.SUCCEEDED);
    }

    @Test
    void badValuesAreRefusedClearlyAndNothingIsWritten() {
        JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
        int before = jdbc.queryForObject("SELECT COUNT(*) FROM delay_task", Integer.class);

        assertThatIllegalArgumentException()
            .isThrownBy(() -> queue.schedule("rel.any", "x".repeat(10 * 1024), Duration.ZERO))
            .withMessageContaining("delay.payload.max-size");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("rel.any", "broken \uD83D", Duration.ZERO))
            .withMessageContaining("surrogate");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> queue.schedule(TaskRequest.of("rel.any", "x").key("k".repeat(10_000)).build()))
            .withMessageContaining("255");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("t".repeat(500), "x", Duration.ZERO))
            .withMessageContaining("128");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("rel.any", "x", Instant.MAX))
            .withMessageContaining("9999");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> queue.schedule("rel.any", "x", Duration.ofSeconds(Long.MAX_VALUE)))
            .withMessageContaining("9999");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule(null, "x", Duration.ZERO));
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("rel.any", "x", (Duration) null));
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("rel.any", "x", (Instant) null));
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule(null));
        assertThatIllegalArgumentException().isThrownBy(() -> queue.scheduleAll(null));
        List<TaskRequest> withNull = new ArrayList<>();
        withNull.add(TaskRequest.of("rel.any", "ok").build());
        withNull.add(null);
        assertThatIllegalArgumentException().isThrownBy(() -> queue.scheduleAll(withNull));
        assertThatIllegalArgumentException().isThrownBy(() -> queue.reschedule(1, null));
        assertThatIllegalArgumentException().isThrownBy(() -> queue.cancel("rel.any", null));
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("rel.any", new Object() {
            @SuppressWarnings("unused")
            public Object getSelf() {
                return this;
            }
        }, Duration.ZERO)).withMessageContaining("cannot be serialised");

        // a whole batch is refused if one request is bad: none of it is written
        assertThatIllegalArgumentException().isThrownBy(() -> queue.scheduleAll(List.of(
                TaskRequest.of("rel.any", "fine").build(), TaskRequest.of("", "bad type").build())));
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task", Integer.class)).isEqualTo(before);
        assertThePollerStillWorks();
    }

    @Test
    void oddButValidValuesWork() {
        long oddType = queue.schedule("rel.any", "x", Duration.ZERO);
        long farPast = queue.schedule("rel.any", "past", Instant.MIN);
        long epoch = queue.schedule("rel.any", "epoch", Instant.EPOCH);
        long negative = queue.schedule("rel.any", "negative delay", Duration.ofDays(-365));
        long farFuture = queue.schedule("rel.any", "far", Instant.parse("9999-12-31T00:00:00Z"));
        long oddKey = queue.schedule(TaskRequest.of("rel.any", "k").key("ключ/🔑 with spaces & ; DROP TABLE x").build());
        for (long id : List.of(oddType, farPast, epoch, negative, oddKey)) {
            assertThat(awaitFinished(id).status()).isEqualTo(TaskStatus.SUCCEEDED);
        }
        assertThat(queue.find(farFuture).orElseThrow().status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(queue.find("rel.any", "ключ/🔑 with spaces & ; DROP TABLE x")).isPresent();
        assertThat(queue.cancel(farFuture)).isTrue();
    }

    @Test
    void misbehavingHandlersDoNotTakeThePoolDown() {
        long error = queue.schedule("rel.error", "e", Duration.ZERO);
        long interrupt = queue.schedule("rel.interrupt", "i", Duration.ZERO);
        long forever = queue.schedule("rel.forever", "f", Duration.ZERO);

        TaskView errored = awaitFinished(error);
        assertThat(errored.status()).isEqualTo(TaskStatus.FAILED);
        assertThat(errored.lastError()).contains("OutOfMemoryError").contains("injected Error");
        assertThat(awaitFinished(interrupt).status()).isEqualTo(TaskStatus.SUCCEEDED);
        journalHas(forever);

        // two threads are left besides the blocked one; they run everything else, repeatedly
        List<Long> rest = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rest.add(queue.schedule(i % 5 == 0 ? "rel.interrupt" : "rel.any", "r" + i, Duration.ZERO));
        }
        for (long id : rest) {
            assertThat(awaitFinished(id).status()).isEqualTo(TaskStatus.SUCCEEDED);
        }
        assertThat(queue.find(forever).orElseThrow().status()).isEqualTo(TaskStatus.RUNNING);
    }

    private void journalHas(long id) {
        journal.awaitStarted(id, 10);
    }
}
