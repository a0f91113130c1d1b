package dev.outbox4j.testkit;

import dev.outbox4j.flow.FlowLedger;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.json.JsonFlowStateCodec;
import dev.outbox4j.memory.InMemoryFlowLedger;
import java.time.Clock;
import java.time.Duration;

class InMemoryFlowLedgerTest extends FlowLedgerContract {
  private static final FlowStateCodec<String> CODEC = JsonFlowStateCodec.of(String.class);
  private InMemoryFlowLedger<String> ledger = InMemoryFlowLedger.builder(CODEC).build();

  @Override
  protected FlowLedger<String> newLedger(Clock clock, int maxStateBytes) {
    ledger = InMemoryFlowLedger.builder(CODEC).withClock(clock).withMaxStateBytes(maxStateBytes).build();
    return ledger;
  }

  @Override
  protected FlowStateCodec<String> codec() {
    return CODEC;
  }

  @Override
  protected void plantRaw(String flowId, long storedRevision, byte[] content, Duration ttl) {
    ledger.plantRawForTesting(flowId, storedRevision, content, ttl);
  }
}
