package io.github.delayqueue.handler;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Binding is strict by default: a payload that lacks a component of the handler's record (a task of another type,
 * or of an older version of the record), a null for a primitive or a fraction for an integer does not bind, where
 * plain Jackson would make it up; what the codec writes itself always binds back.
 */
class JacksonPayloadCodecTest {

    /** What the handler takes. */
    record Order(Long id, String customer) {
    }

    /** What another application (or a mistyped schedule call) stored under the handler's type. */
    record Mail(String to) {
    }

    record Line(long quantity, String sku) {
    }

    private final JacksonPayloadCodec codec = new JacksonPayloadCodec(JsonMapper.builder().build());

    @Test
    void aRecordOfAnotherTypeDoesNotBind() {
        String mail = codec.encode(new Mail("ada@example.org"));

        assertThatExceptionOfType(PayloadBindingException.class).isThrownBy(() -> codec.decode(mail, Order.class))
            .withMessageContaining(Order.class.getTypeName())
            .withMessageContaining("'id'");
    }

    @Test
    void aMissingComponentDoesNotBind() {
        assertThatExceptionOfType(PayloadBindingException.class)
            .isThrownBy(() -> codec.decode("{\"id\":7}", Order.class))
            .withMessageContaining("'customer'");
    }

    @Test
    void aNullForAPrimitiveDoesNotBindEvenWhereTheApplicationsMapperAllowsIt() {
        JacksonPayloadCodec lenientMapper = new JacksonPayloadCodec(JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build());

        assertThatExceptionOfType(PayloadBindingException.class)
            .isThrownBy(() -> lenientMapper.decode("{\"quantity\":null,\"sku\":\"A-1\"}", Line.class))
            .withMessageContaining("quantity");
    }

    @Test
    void aFractionForAnIntegerDoesNotBind() {
        assertThatExceptionOfType(PayloadBindingException.class)
            .isThrownBy(() -> codec.decode("{\"quantity\":1.5,\"sku\":\"A-1\"}", Line.class));
    }

    @Test
    void aPayloadOfTheWrongShapeDoesNotBind() {
        assertThatExceptionOfType(PayloadBindingException.class)
            .isThrownBy(() -> codec.decode("\"not an order\"", Order.class));
        assertThatExceptionOfType(PayloadBindingException.class)
            .isThrownBy(() -> codec.decode("[1, 2]", Order.class));
    }

    @Test
    void whatTheCodecWritesBindsBackWithNullComponentsEvenUnderANonNullInclusion() {
        JacksonPayloadCodec nonNull = new JacksonPayloadCodec(JsonMapper.builder()
            .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL))
            .build());
        Order order = new Order(7L, null);

        assertThat(nonNull.decode(nonNull.encode(order), Order.class)).isEqualTo(order);
        assertThat(codec.decode(codec.encode(order), Order.class)).isEqualTo(order);
    }

    @Test
    void unknownPropertiesStillBindSoANewerProducerCanAddAComponent() {
        assertThat(codec.decode("{\"id\":7,\"customer\":\"Ada\",\"coupon\":\"X\"}", Order.class))
            .isEqualTo(new Order(7L, "Ada"));
    }

    @Test
    void genericAndPlainPayloadsBindAsBefore() {
        assertThat(codec.decode("[{\"id\":1,\"customer\":\"a\"}]", new TypeReference<List<Order>>() {
        }.getType())).isEqualTo(List.of(new Order(1L, "a")));
        assertThat(codec.decode("{\"a\":1}", Map.class)).isEqualTo(Map.of("a", 1));
        assertThat(codec.decode("\"text\"", String.class)).isEqualTo("text");
        assertThat(codec.decode("null", Order.class)).isNull();
    }

    @Test
    void lenientBindingBindsAsTheApplicationsMapperDoes() {
        JacksonPayloadCodec lenient = new JacksonPayloadCodec(JsonMapper.builder().build(), false);

        assertThat(lenient.decode(lenient.encode(new Mail("ada@example.org")), Order.class))
            .isEqualTo(new Order(null, null));
        assertThat(lenient.decode("{\"quantity\":1.5,\"sku\":\"A-1\"}", Line.class)).isEqualTo(new Line(1, "A-1"));
    }

    @Test
    void aStrictFailureSaysWhereAndWhetherLenientBindingWouldBind() {
        assertThatExceptionOfType(PayloadBindingException.class)
            .isThrownBy(() -> codec.decode("{\"id\":7}", Order.class))
            .withMessageContaining("delay.payload.strict-binding=false");
        assertThatExceptionOfType(PayloadBindingException.class)
            .isThrownBy(() -> codec.decode("[{\"quantity\":\"many\",\"sku\":\"A-1\"}]",
                    new TypeReference<List<Line>>() {
                    }.getType()))
            .withMessageContaining(" at [0].quantity")
            .withMessageNotContaining("strict-binding");
    }
}
