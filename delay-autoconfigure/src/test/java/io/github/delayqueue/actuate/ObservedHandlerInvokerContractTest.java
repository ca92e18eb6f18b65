package io.github.delayqueue.actuate;

import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.test.HandlerInvokerContract;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

/**
 * {@link HandlerInvokerContract} on {@link ObservedHandlerInvoker}, with a registry that times each run as the
 * actuator's does, so that every run is a started, scoped and stopped observation.
 */
class ObservedHandlerInvokerContractTest extends HandlerInvokerContract {

    @Override
    protected HandlerInvoker createInvoker() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
        return new ObservedHandlerInvoker(registry, null);
    }
}
