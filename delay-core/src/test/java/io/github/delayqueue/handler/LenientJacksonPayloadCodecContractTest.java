package io.github.delayqueue.handler;

import io.github.delayqueue.test.PayloadCodecContract;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link PayloadCodecContract} on {@link JacksonPayloadCodec} binding leniently, as the application's mapper does
 * ({@code delay.payload.strict-binding=false}).
 */
class LenientJacksonPayloadCodecContractTest extends PayloadCodecContract {

    @Override
    protected PayloadCodec createCodec() {
        return new JacksonPayloadCodec(JsonMapper.builder().build(), false);
    }
}
