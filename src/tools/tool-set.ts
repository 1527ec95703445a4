import type { AnyTool } from './define-tool.js';
import type { ToolSpec } from '../run/types.js';

/**
 * Tools that can change while the agent lives: an MCP connection is one (its
 * server adds and removes tools). `tools` is read at every turn; give a new
 * array when the list changes.
 */
export interface ToolSource {
  readonly tools: readonly AnyTool[];
  /**
   * A tool of this name the source makes on demand, beyond `tools` (a request agent takes any tool name a caller
   * asks about): found by `get` and `has`, never offered to the model.
   */
  toolNamed?(name: string): AnyTool | undefined;
}

/** Whether an entry of an agent's `tools` is a source rather than a tool made with `defineTool`. */
export function isToolSource(value: AnyTool | ToolSource): value is ToolSource {
  return !('spec' in value) && Array.isArray((value as ToolSource).tools);
}

/**
 * An agent's tools by name: its own, then those its sources offer now. The
 * map is rebuilt only when a source hands out a new array; a source's tool
 * whose name is taken already (by one of the agent's own or an earlier
 * source's) is left out, so a refresh never replaces a tool under a run.
 *
 * A tool a source stops offering is no longer offered to the model, nor listed
 * by `has`, `keys` or `values`, but `get` still finds it for the life of the
 * agent: a run that paused on a call of it resumes with the tool's own answer
 * (an MCP tool says its server no longer offers it) rather than a
 * `ToolNotFoundError`.
 */
export class ToolSet implements ReadonlyMap<string, AnyTool> {
  readonly #entries: readonly (AnyTool | ToolSource)[];
  readonly #sources: readonly ToolSource[];
  #seen: readonly (readonly AnyTool[])[] = [];
  #byName = new Map<string, AnyTool>();
  #former = new Map<string, AnyTool>();
  #specs: readonly ToolSpec[] = [];

  constructor(entries: readonly (AnyTool | ToolSource)[]) {
    this.#entries = entries;
    this.#sources = entries.filter(isToolSource);
    this.#rebuild();
  }

  /** The specs the model is offered, in the order the tools were given. */
  get specs(): readonly ToolSpec[] {
    return this.#sync().#specs;
  }

  get size(): number {
    return this.#sync().#byName.size;
  }
  get(name: string): AnyTool | undefined {
    return this.#sync().#byName.get(name) ?? this.#former.get(name) ?? this.#onDemand(name);
  }
  has(name: string): boolean {
    return this.#sync().#byName.has(name) || this.#onDemand(name) !== undefined;
  }
  keys(): MapIterator<string> {
    return this.#sync().#byName.keys();
  }
  values(): MapIterator<AnyTool> {
    return this.#sync().#byName.values();
  }
  entries(): MapIterator<[string, AnyTool]> {
    return this.#sync().#byName.entries();
  }
  [Symbol.iterator](): MapIterator<[string, AnyTool]> {
    return this.entries();
  }
  forEach(callback: (value: AnyTool, key: string, map: ReadonlyMap<string, AnyTool>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#sync().#byName) callback.call(thisArg, value, key, this);
  }

  #onDemand(name: string): AnyTool | undefined {
    for (const source of this.#sources) {
      const tool = source.toolNamed?.(name);
      if (tool !== undefined) return tool;
    }
    return undefined;
  }

  #sync(): this {
    for (let index = 0; index < this.#sources.length; index += 1) {
      if (this.#sources[index]!.tools !== this.#seen[index]) return this.#rebuild();
    }
    return this;
  }

  #rebuild(): this {
    this.#seen = this.#sources.map((source) => source.tools);
    const byName = new Map<string, AnyTool>();
    for (const entry of this.#entries) {
      for (const tool of isToolSource(entry) ? entry.tools : [entry])
        if (!byName.has(tool.name)) byName.set(tool.name, tool);
    }
    for (const [name, tool] of this.#byName) if (!byName.has(name)) this.#former.set(name, tool);
    for (const name of byName.keys()) this.#former.delete(name);
    this.#byName = byName;
    this.#specs = [...byName.values()].map((tool) => tool.spec);
    return this;
  }
}
