package io.github.delayqueue.handler;

import java.lang.reflect.Type;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link PayloadCodec} on the application's Jackson 3 {@link JsonMapper}, so payloads bind like request bodies, with
 * the application's modules and settings; but strictly, unless told otherwise.
 * <p>
 * <b>Strict binding</b> (the default): a component of a record (any creator property) that the stored JSON lacks, a
 * {@code null} for a primitive, or a number with a fraction for an integer fails binding, and the task is
 * dead-lettered, instead of running with what plain Jackson makes up ({@code null}, {@code 0}, a truncated number).
 * That is what a payload of another type stored under the handler's type looks like (another application sharing the
 * table, a wrong type name in a {@code schedule} call), and running such a task does the wrong thing quietly.
 * Properties the type does not know are ignored either way, so a producer may add a component before its consumers
 * know it. To keep what the codec writes bindable, it writes every property, {@code null}s included, whatever the
 * application's default inclusion (a class- or property-level {@code @JsonInclude} still applies, and a component it
 * leaves out is then missing).
 * <p>
 * <b>Lenient binding</b> binds as the application's mapper does. It suits payloads that lack components on purpose,
 * e.g. tasks scheduled before a component was added to the record that are still pending.
 */
public class JacksonPayloadCodec implements PayloadCodec {

    private final JsonMapper mapper;

    /** The application's mapper as it is, to tell in a strict failure whether lenient binding would have bound. */
    private final @Nullable JsonMapper lenient;

    /** A codec that binds strictly. */
    public JacksonPayloadCodec(JsonMapper mapper) {
        this(mapper, true);
    }

    /**
     * @param mapper the application's mapper
     * @param strictBinding {@code true} to bind strictly (see the class), {@code false} to bind as {@code mapper}
     *        does ({@code delay.payload.strict-binding})
     */
    public JacksonPayloadCodec(JsonMapper mapper, boolean strictBinding) {
        this.mapper = strictBinding ? strict(mapper) : mapper;
        this.lenient = strictBinding ? mapper : null;
    }

    private static JsonMapper strict(JsonMapper mapper) {
        return mapper.rebuild()
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES,
                    DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            // a null component written out binds back as null; left out, strict binding would call it missing
            .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.ALWAYS))
            .build();
    }

    @Override
    public String encode(@Nullable Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("payload of type "
                    + (payload == null ? "null" : payload.getClass().getName())
                    + " cannot be serialised to JSON: " + ex.getOriginalMessage()
                    + "; pass a value Jackson can write (a record, a bean, a map, a string)", ex);
        }
    }

    @Override
    public @Nullable Object decode(String json, Type type) {
        try {
            return mapper.readValue(json, mapper.constructType(type));
        }
        catch (JacksonException ex) {
            throw new PayloadBindingException("cannot bind payload to " + type.getTypeName() + at(ex) + ": "
                    + ex.getOriginalMessage() + (bindsLeniently(json, type) ? "; it binds only leniently, with "
                            + "what is missing made up (null, 0): if that is meant, set "
                            + "delay.payload.strict-binding=false" : ""),
                    ex);
        }
    }

    /** Where in the payload binding failed, e.g. {@code " at lines[2].sku"}; empty at its root. */
    private static String at(JacksonException ex) {
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference reference : ex.getPath()) {
            if (reference.getPropertyName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(reference.getPropertyName());
            }
            else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.isEmpty() ? "" : " at " + path;
    }

    /** Whether the application's mapper as it is binds what strict binding refused; asked only on a failure. */
    private boolean bindsLeniently(String json, Type type) {
        if (lenient == null) {
            return false;
        }
        try {
            lenient.readValue(json, lenient.constructType(type));
            return true;
        }
        catch (RuntimeException ex) { // JacksonException, or what a value's own constructor threw
            return false;
        }
    }
}
