// Port: a message queue (SQS in AWS, fauxqs locally — the same adapter with another endpoint).

export interface MessageQueue {
  send(body: unknown, options?: { delaySeconds?: number }): Promise<void>;
}
