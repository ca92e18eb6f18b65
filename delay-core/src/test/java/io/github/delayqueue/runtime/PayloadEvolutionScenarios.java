package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A payload class changed while its tasks waited, on a store a subclass gives ({@link #builder()}, every call on the
 * same table): the old payloads are upcast and run; without an upcaster they are parked (not failed, not lost) with
 * the reason, and re-run, one by one or a type's all at once, by a later runtime on the same table that has one.
 */
abstract class PayloadEvolutionScenarios {

    static final Duration PATIENCE = Duration.ofSeconds(30);

    /** The payload as the previous release wrote it: the id was called {@code orderId}. */
    record OldShipment(long orderId, String carrier) {
    }

    /** The payload class today. */
    record Shipment(long id, String carrier) {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Renames {@code orderId} to {@code id}, as the README's example does; leaves a current payload as it is. */
    static final UnaryOperator<String> RENAME_ORDER_ID = payload -> {
        ObjectNode tree = (ObjectNode) JSON.readTree(payload);
        if (tree.has("orderId")) {
            tree.set("id", tree.remove("orderId"));
        }
        return JSON.writeValueAsString(tree);
    };

    private final List<DelayQueueRuntime> runtimes = new CopyOnWriteArrayList<>();

    /** A builder on the table under test: the same table on every call within a test. */
    abstract DelayQueueRuntimeBuilder builder();

    DelayQueueRuntime start(Shipments shipments, @Nullable UnaryOperator<String> upcaster) {
        DelayQueueRuntimeBuilder builder = builder().handlers(shipments)
            .pollInterval(Duration.ofMillis(50))
            .shutdownTimeout(Duration.ofSeconds(5));
        if (upcaster != null) {
            builder.payloadUpcaster("order.ship", upcaster);
        }
        DelayQueueRuntime runtime = builder.build();
        runtimes.add(runtime);
        runtime.start();
        return runtime;
    }

    @AfterEach
    void close() {
        runtimes.forEach(DelayQueueRuntime::close);
    }

    static TaskView view(DelayQueueRuntime runtime, long id) {
        return runtime.queue().find(id).orElseThrow();
    }

    static void awaitStatus(DelayQueueRuntime runtime, long id, TaskStatus status) {
        await().atMost(PATIENCE).until(() -> view(runtime, id).status() == status);
    }

    @Test
    void anOldPayloadIsUpcastBeforeItIsBoundAndRuns() {
        Shipments shipments = new Shipments();
        DelayQueueRuntime runtime = start(shipments, RENAME_ORDER_ID);
        long old = runtime.queue().schedule("order.ship", new OldShipment(7, "dhl"), Duration.ZERO);
        long current = runtime.queue().schedule("order.ship", new Shipment(8, "ups"), Duration.ZERO);

        awaitStatus(runtime, old, TaskStatus.SUCCEEDED);
        awaitStatus(runtime, current, TaskStatus.SUCCEEDED);
        assertThat(shipments.shipped).containsExactlyInAnyOrder(new Shipment(7, "dhl"), new Shipment(8, "ups"));
    }

    @Test
    void aPayloadThatDoesNotBindIsParkedAndRunsWhenReRunByARuntimeWithAnUpcaster() {
        Shipments before = new Shipments();
        DelayQueueRuntime previous = start(before, null);
        long id = previous.queue().schedule("order.ship", new OldShipment(7, "dhl"), Duration.ZERO);

        awaitStatus(previous, id, TaskStatus.PARKED);
        TaskView parked = view(previous, id);
        assertThat(parked.lastError()).contains("Payload of task " + id + " (type 'order.ship') does not fit")
            .contains("'id'").contains("the task is PARKED: register a payload upcaster");
        assertThat(parked.errors()).singleElement()
            .satisfies(error -> assertThat(error.error()).isEqualTo(parked.lastError()));
        assertThat(before.shipped).isEmpty();
        previous.close();

        Shipments after = new Shipments();
        DelayQueueRuntime next = start(after, RENAME_ORDER_ID);
        assertThat(view(next, id).status()).as("a parked task waits for an operator").isEqualTo(TaskStatus.PARKED);
        assertThat(next.rerun(id)).isTrue();
        awaitStatus(next, id, TaskStatus.SUCCEEDED);
        assertThat(after.shipped).containsExactly(new Shipment(7, "dhl"));
        assertThat(view(next, id).attempts()).as("counted from the re-run").isEqualTo(1);
    }

    /**
     * A parked task holds no key, like a dead letter: a new task with its key is scheduled meanwhile, and the bulk
     * re-run leaves the parked one of that key parked, re-running the others.
     */
    @Test
    void everyParkedTaskOfATypeIsReRunAtOnceButOneWhoseKeyANewTaskHolds() {
        DelayQueueRuntime previous = start(new Shipments(), null);
        List<Long> parked = new CopyOnWriteArrayList<>();
        for (long order = 1; order <= 3; order++) {
            parked.add(previous.queue().schedule("order.ship", new OldShipment(order, "dhl"), Duration.ZERO));
        }
        long keyed = previous.queue().schedule(TaskRequest.of("order.ship", new OldShipment(4, "dhl"))
            .key("order-4").build());
        for (long id : parked) {
            awaitStatus(previous, id, TaskStatus.PARKED);
        }
        awaitStatus(previous, keyed, TaskStatus.PARKED);
        long newer = previous.queue().schedule(TaskRequest.of("order.ship", new Shipment(4, "fedex"))
            .key("order-4").delay(Duration.ofHours(1)).build());
        assertThat(newer).as("the parked task holds no key").isNotEqualTo(keyed);
        previous.close();

        Shipments after = new Shipments();
        DelayQueueRuntime next = start(after, RENAME_ORDER_ID);
        assertThat(next.rerunParked("order.ship")).isEqualTo(3);
        for (long id : parked) {
            awaitStatus(next, id, TaskStatus.SUCCEEDED);
        }
        assertThat(after.shipped).containsExactlyInAnyOrder(new Shipment(1, "dhl"), new Shipment(2, "dhl"),
                new Shipment(3, "dhl"));
        assertThat(view(next, keyed).status()).isEqualTo(TaskStatus.PARKED);
        assertThat(next.rerunParked("order.ship")).as("nothing left that can run").isZero();
        assertThat(next.rerunParked("no.such.type")).isZero();
    }

    /** The handler of today's release. */
    static class Shipments {

        final List<Shipment> shipped = new CopyOnWriteArrayList<>();

        @DelayedHandler(type = "order.ship")
        void ship(Shipment shipment) {
            shipped.add(shipment);
        }
    }
}
