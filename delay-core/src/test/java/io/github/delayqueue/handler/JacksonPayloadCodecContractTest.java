package io.github.delayqueue.handler;

import io.github.delayqueue.test.PayloadCodecContract;
import tools.jackson.databind.json.JsonMapper;

/** {@link PayloadCodecContract} on {@link JacksonPayloadCodec} as the queue uses it by default: binding strictly. */
class JacksonPayloadCodecContractTest extends PayloadCodecContract {

    @Override
    protected PayloadCodec createCodec() {
        return new JacksonPayloadCodec(JsonMapper.builder().build());
    }
}
