package io.github.delayqueue.handler;

import io.github.delayqueue.test.HandlerInvokerContract;

/** {@link HandlerInvokerContract} on {@link HandlerInvoker#DIRECT}, the invoker the engine uses unless given one. */
class DirectHandlerInvokerTest extends HandlerInvokerContract {

    @Override
    protected HandlerInvoker createInvoker() {
        return HandlerInvoker.DIRECT;
    }
}
