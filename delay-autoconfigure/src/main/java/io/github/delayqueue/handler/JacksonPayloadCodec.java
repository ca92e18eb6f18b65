package io.github.delayqueue.handler;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** {@link PayloadCodec} on the application's Jackson 3 {@link JsonMapper}, so payloads bind like request bodies. */
public class JacksonPayloadCodec implements PayloadCodec {

    private final JsonMapper mapper;

    public JacksonPayloadCodec(JsonMapper mapper) {
        this.mapper = mapper;
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
            throw new PayloadBindingException("cannot bind payload to " + type.getTypeName() + ": "
                    + ex.getOriginalMessage(), ex);
        }
    }
}
