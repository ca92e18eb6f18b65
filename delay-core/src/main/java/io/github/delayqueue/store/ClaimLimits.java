package io.github.delayqueue.store;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The cluster-wide limits one claim must hold ({@link TypeLimit} by task type), and where the store says which of
 * them kept the claim from taking more: the engine then leaves that type out of its claims until a slot may be free
 * again, instead of asking the database in a loop. A store implementation needs it to implement the typed claims.
 */
public final class ClaimLimits {

    private static final ClaimLimits NONE = new ClaimLimits(Map.of(), type -> {
    });

    private final Map<String, TypeLimit> byType;

    private final Consumer<String> onReached;

    /**
     * @param byType the limits of the limited types (types without one are left out)
     * @param onReached told the type whose limit stopped the claim (it took all the limit allowed)
     */
    public ClaimLimits(Map<String, TypeLimit> byType, Consumer<String> onReached) {
        this.byType = Map.copyOf(byType);
        this.onReached = onReached;
    }

    /** No limits: a claim takes what is due. */
    public static ClaimLimits none() {
        return NONE;
    }

    /** The limits of those of {@code types} that have one. */
    public Map<String, TypeLimit> of(Collection<String> types) {
        if (byType.isEmpty()) {
            return Map.of();
        }
        Map<String, TypeLimit> limits = new HashMap<>();
        for (String type : types) {
            TypeLimit limit = byType.get(type);
            if (limit != null && limit.any()) {
                limits.put(type, limit);
            }
        }
        return limits;
    }

    /**
     * Called by the store: the claim could take no more of {@code type} now: it took all its limit allowed (or none
     * because of it), or another claim held the type's turn. The engine leaves the type out until a recheck.
     */
    public void reached(String type) {
        onReached.accept(type);
    }
}
