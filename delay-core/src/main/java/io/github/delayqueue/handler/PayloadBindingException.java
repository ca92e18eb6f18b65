package io.github.delayqueue.handler;

/**
 * A stored payload could not be bound to its handler's parameter type; the task goes to the dead letter at once.
 * Public because a {@link PayloadCodec} of an application's own throws it to say so.
 */
public class PayloadBindingException extends RuntimeException {

    public PayloadBindingException(String message, Throwable cause) {
        super(message, cause);
    }
}
