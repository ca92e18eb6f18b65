package io.github.delayqueue.actuate;

import io.github.delayqueue.actuate.DelayQueueEndpoint.ActionDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.BulkDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.TaskDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.TasksPageDescriptor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * HTTP status codes for the {@code delayqueue} endpoint's task operations: 404 when there is no such task, 409 when
 * the action does not apply to the task's status (with the task in the body), 400 for an unknown action. And the
 * operations on all the tasks of a type, under a path of their own, {@code /actuator/delayqueue/types/{type}}, so
 * that a type never reads as a task id: {@code GET} a page of its tasks that have not started, {@code POST} a bulk
 * cancel, reschedule or shift by key prefix, or a re-run of its parked tasks (400 for bad input, with what to change
 * in the message).
 */
@EndpointWebExtension(endpoint = DelayQueueEndpoint.class)
public class DelayQueueEndpointWebExtension {

    /**
     * 409 Conflict: the action does not apply to the task's status. {@link WebEndpointResponse} names no such status
     * (Boot 4.0 has 200, 204, 400, 404, 429, 500 and 503), and Spring's {@code HttpStatus} is in spring-web, which
     * this module does not need.
     */
    private static final int STATUS_CONFLICT = 409;

    /** The fixed first path segment of the operations on a type's tasks, as Boot's quartz endpoint has "jobs". */
    private static final String TYPES = "types";

    private final DelayQueueEndpoint delegate;

    public DelayQueueEndpointWebExtension(DelayQueueEndpoint delegate) {
        this.delegate = delegate;
    }

    @ReadOperation
    public WebEndpointResponse<TaskDescriptor> task(@Selector long id) {
        TaskDescriptor task = delegate.task(id);
        return task == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND)
                : new WebEndpointResponse<>(task);
    }

    @WriteOperation
    public WebEndpointResponse<ActionDescriptor> act(@Selector long id, String action) {
        ActionDescriptor result = delegate.act(id, action);
        if (result == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        return new WebEndpointResponse<>(result, result.done() ? WebEndpointResponse.STATUS_OK : STATUS_CONFLICT);
    }

    /**
     * {@code GET /actuator/delayqueue/types/{type}?keyPrefix=..&after=..&limit=..}: a page of the type's tasks that
     * have not started, to see what a bulk change would touch ({@link DelayQueueEndpoint#unstarted}); pass the
     * answer's {@code next} as {@code after} for the next page.
     *
     * @param types the path segment {@code types}
     * @param type the task type
     * @param keyPrefix the start of the keys, or absent for every task of the type
     * @param after the previous page's {@code next}, or absent for the first page
     * @param limit tasks per page, 1 to 1,000, or absent for 100
     * @return 200 with the page (empty for an unknown type); 400 for bad input
     */
    @ReadOperation
    public WebEndpointResponse<TasksPageDescriptor> unstarted(@Selector String types, @Selector String type,
            @Nullable String keyPrefix, @Nullable Long after, @Nullable Integer limit) {
        checkTypes(types, type);
        return new WebEndpointResponse<>(delegate.unstarted(type, keyPrefix, after, limit));
    }

    /**
     * {@code POST /actuator/delayqueue/types/{type}} with {@code {"action": "cancel"|"reschedule"|"shift",
     * "keyPrefix": "..", "dueAt": "2026-12-07T09:00:00Z", "by": "10m"}} ({@code "all": true} instead of a prefix for
     * every task of the type): changes all the type's matching tasks that have not started
     * ({@link DelayQueueEndpoint#bulk}), in batches; {@code {"action": "rerun", "all": true}} re-runs the type's parked
     * tasks.
     *
     * @param types the path segment {@code types}
     * @param type the task type
     * @param action {@code cancel}, {@code reschedule}, {@code shift} or {@code rerun}
     * @param keyPrefix the start of the keys, required unless {@code all}
     * @param all {@code true} for every task of the type instead of a prefix
     * @param dueAt {@code reschedule}'s new due time
     * @param by {@code shift}'s duration
     * @return 200 with how many tasks changed (0 for an unknown type); 400 for bad input
     */
    @WriteOperation
    public WebEndpointResponse<BulkDescriptor> bulk(@Selector String types, @Selector String type, String action,
            @Nullable String keyPrefix, @Nullable Boolean all, @Nullable String dueAt, @Nullable String by) {
        checkTypes(types, type);
        return new WebEndpointResponse<>(delegate.bulk(type, action, keyPrefix, all, dueAt, by));
    }

    private static void checkTypes(String types, String type) {
        if (!TYPES.equals(types)) {
            throw DelayQueueEndpoint.invalid("Unknown path /actuator/delayqueue/" + types + "/" + type
                    + ": the tasks of a type are at /actuator/delayqueue/types/{type}");
        }
    }
}
