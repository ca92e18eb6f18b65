package io.github.delayqueue.actuate;

import io.github.delayqueue.actuate.DelayQueueEndpoint.ActionDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.TaskDescriptor;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * HTTP status codes for the {@code delayqueue} endpoint's task operations: 404 when there is no such task, 409 when
 * the action does not apply to the task's status (with the task in the body), 400 for an unknown action.
 */
@EndpointWebExtension(endpoint = DelayQueueEndpoint.class)
public class DelayQueueEndpointWebExtension {

    /**
     * 409 Conflict: the action does not apply to the task's status. {@link WebEndpointResponse} names no such status
     * (Boot 4.0 has 200, 204, 400, 404, 429, 500 and 503), and Spring's {@code HttpStatus} is in spring-web, which
     * this module does not need.
     */
    private static final int STATUS_CONFLICT = 409;

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
}
