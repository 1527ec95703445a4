// Where a gateway `Server` keeps the tasks its client asked for (MCP tasks, 2025-11-25, experimental in the SDK): the
// SDK's in-memory store, one per client connection (another client never sees them), that also tells the gateway
// when the client cancelled a task, so the call's request is withdrawn.
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's in-memory task store, with a signal per task that aborts when the task is cancelled. */
export class CancellableTaskStore extends InMemoryTaskStore {
  readonly #cancels = new Map<string, AbortController>();

  /** Aborts once task `taskId` is cancelled; forget it with `settled` when the task ends otherwise. */
  cancelled(taskId: string): AbortSignal {
    let controller = this.#cancels.get(taskId);
    if (controller === undefined) {
      controller = new AbortController();
      this.#cancels.set(taskId, controller);
    }
    return controller.signal;
  }

  /** Stops watching task `taskId`. */
  settled(taskId: string): void {
    this.#cancels.delete(taskId);
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') this.#cancels.get(taskId)?.abort();
  }

  /** Clears the store's expiry timers and the signals (the connection closed). */
  override cleanup(): void {
    super.cleanup();
    this.#cancels.clear();
  }
}
