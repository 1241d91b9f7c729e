import type { Logger } from 'pino';
import type { JobQueue } from '../../core/ports.ts';
import { BullmqQueue, type BullmqQueueOptions } from './bullmq-queue.ts';
import { EmbeddedQueue } from './embedded-queue.ts';
import type { DeliveryOptions, OutboxSource } from './run-entry.ts';

export interface CreateJobQueueOptions extends DeliveryOptions, Pick<BullmqQueueOptions, 'queueName' | 'prefix'> {
  /** BullMQ on this Redis when set; the embedded loop otherwise. */
  redisUrl?: string;
  outbox: OutboxSource;
  logger: Logger;
}

/** The job queue the configuration asks for: BullMQ when a Redis URL is given, the embedded loop otherwise. */
export function createJobQueue(o: CreateJobQueueOptions): JobQueue {
  const { redisUrl, ...rest } = o;
  return redisUrl ? new BullmqQueue({ ...rest, redisUrl }) : new EmbeddedQueue(rest);
}
