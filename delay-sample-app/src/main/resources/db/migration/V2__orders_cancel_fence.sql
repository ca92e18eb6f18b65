-- The fencing token of the cancellation task's run that last wrote the order (TaskContext.fencingToken): a run whose
-- instance stalled past its lease, while another instance ran the task again, has a lower token and writes nothing.
ALTER TABLE orders ADD COLUMN cancel_fence BIGINT NULL;
