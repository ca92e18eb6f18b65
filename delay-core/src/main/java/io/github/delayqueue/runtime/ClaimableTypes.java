package io.github.delayqueue.runtime;

import java.util.Set;

import io.github.delayqueue.handler.HandlerRegistry;

/**
 * The task types this instance claims: those it has a handler for. A task of any other type is never claimed here,
 * so it waits, pending, for an instance that runs it (a newer version in a rolling deploy, another application on
 * the same table) instead of failing on one that cannot. Asked before every claim, so a handler registered after the
 * engine started is claimed for from the next round.
 */
final class ClaimableTypes {

    private final HandlerRegistry registry;

    ClaimableTypes(HandlerRegistry registry) {
        this.registry = registry;
    }

    /** The types a claim may take now; empty when there are none, and then nothing is claimed. */
    Set<String> now() {
        return registry.types();
    }

    /** The types this instance has handlers for, whether or not it can start one now. */
    Set<String> served() {
        return registry.types();
    }
}
