import { and, not, or, type AnyStateMachine, type AnyStateNode } from 'xstate';

/** What a compiled step returns: the state value and context after the event and every eventless transition it enables. */
export interface CompiledStep<Context> {
  readonly value: string;
  readonly context: Context;
  /** The state is a final state: the run has ended. */
  readonly done: boolean;
}

/** A machine compiled into a table: the same transitions, guards and assign actions, without xstate's general interpreter. */
export interface CompiledMachine<Context, Event extends { type: string }> {
  /** The state value and context a new actor starts in, as `initialTransition` gives them. */
  initial(input: Context): CompiledStep<Context>;
  /** The next state value and context, as `machine.transition` gives them; undefined when no transition is enabled. */
  transition(value: string, context: Context, event: Event): CompiledStep<Context> | undefined;
  /** Whether the state is final. */
  isFinal(value: string): boolean;
  /** The machine's states, by key. */
  readonly states: readonly string[];
  /** The tags of a state. */
  tagsOf(value: string): readonly string[];
  /** A state's `meta`, as the chart gives it. */
  metaOf(value: string): unknown;
  /** A final state's `output` for a context (its value, or what its mapper returns); undefined for other states. */
  outputOf(value: string, context: Context): unknown;
}

type Assignment = (args: { context: unknown; event: unknown }, params: undefined) => object;
type GuardFunction = ((args: { context: unknown; event: unknown }, params: undefined) => boolean) & {
  check?: (
    snapshot: { machine: AnyStateMachine },
    args: { context: unknown; event: unknown },
    guard: unknown,
  ) => boolean;
};

type CompiledGuard = (args: { context: unknown; event: unknown }) => boolean;

interface Transition {
  readonly guard: CompiledGuard | undefined;
  readonly target: string | undefined;
  readonly assignments: readonly Assignment[];
}

interface StateEntry {
  readonly final: boolean;
  readonly tags: readonly string[];
  readonly output: unknown;
  readonly meta: unknown;
  /** Own transitions then the root's, by event type: the order xstate selects them in. */
  readonly on: ReadonlyMap<string, readonly (readonly Transition[])[]>;
  readonly always: readonly Transition[];
}

function unsupported(what: string): never {
  throw new Error(
    `compileMachine: ${what} is not supported by the compiled executor; keep the machine to flat states, named or inline guards and assign actions, or step it with xstate's transition.`,
  );
}

type TransitionDefinition = {
  guard?: unknown;
  target?: readonly AnyStateNode[] | undefined;
  actions: readonly unknown[];
  reenter?: boolean;
};

/** The machine's named and inline `assign` actions, as the assignment functions xstate would call. */
function assignmentOf(actions: Record<string, unknown>, action: unknown): Assignment {
  const resolved = typeof action === 'string' ? actions[action] : action;
  const candidate = (typeof resolved === 'function' ? resolved : undefined) as
    | { type?: unknown; assignment?: unknown }
    | undefined;
  if (candidate?.type !== 'xstate.assign' || typeof candidate.assignment !== 'function') {
    return unsupported(`action ${typeof action === 'string' ? action : '(inline)'}, not an assign with a function`);
  }
  return candidate.assignment as Assignment;
}

/**
 * The machine's guards as plain closures: xstate's own and/or/not, recognised by their `check`, become closures over
 * the compiled operands; any other higher-order guard is evaluated by its own `check`.
 */
function guardCompiler(machine: AnyStateMachine): (guard: unknown) => CompiledGuard {
  const guards = machine.implementations.guards as Record<string, GuardFunction | undefined>;
  const guardSnapshot = { machine };
  const combinators = new Map<unknown, (operands: CompiledGuard[]) => CompiledGuard>([
    [(and([]) as GuardFunction).check, (operands) => (args) => operands.every((operand) => operand(args))],
    [(or([]) as GuardFunction).check, (operands) => (args) => operands.some((operand) => operand(args))],
    [
      (not(() => true) as GuardFunction).check,
      ([operand]) =>
        (args) =>
          !operand!(args),
    ],
  ]);
  const compileGuard = (guard: unknown): CompiledGuard => {
    const resolved = typeof guard === 'string' ? guards[guard] : (guard as GuardFunction);
    if (typeof resolved !== 'function') return unsupported(`the guard ${String(guard)}`);
    const check = resolved.check;
    if (!check) return (args) => resolved(args, undefined);
    const combinator = combinators.get(check);
    const operands = (resolved as { guards?: unknown[] }).guards;
    if (combinator && operands) return combinator(operands.map(compileGuard));
    return (args) => check(guardSnapshot, args, resolved);
  };
  return compileGuard;
}

/** The root's children as a table of entries, each with its own transitions then the root's, in xstate's order. */
function compileStates(machine: AnyStateMachine): Map<string, StateEntry> {
  const root: AnyStateNode = machine.root;
  const actions = machine.implementations.actions as Record<string, unknown>;
  const compileGuard = guardCompiler(machine);
  const compileTransitions = (list: readonly TransitionDefinition[]): Transition[] =>
    list.map((definition) => {
      const targets = definition.target ?? [];
      if (targets.length > 1) unsupported('a transition with several targets');
      const target = targets[0];
      if (target && target.parent !== root) unsupported(`target ${target.id}, not a child of the root`);
      if (definition.reenter && target) unsupported('a reentering transition');
      const guard = definition.guard === undefined ? undefined : compileGuard(definition.guard);
      return {
        guard,
        target: target?.key,
        assignments: definition.actions.map((action) => assignmentOf(actions, action)),
      };
    });

  if (root.entry.length > 0 || root.exit.length > 0 || root.always)
    unsupported('an entry, exit or eventless transition on the root');
  const rootOn = new Map<string, Transition[]>();
  for (const [type, list] of root.transitions) rootOn.set(type, compileTransitions(list));
  const states = new Map<string, StateEntry>();
  for (const [key, node] of Object.entries(root.states as Record<string, AnyStateNode>)) {
    if (node.type !== 'atomic' && node.type !== 'final') unsupported(`state ${key} of type ${node.type}`);
    if (node.entry.length > 0 || node.exit.length > 0) unsupported(`entry or exit actions on ${key}`);
    if (node.after.length > 0 || Object.keys(node.config.invoke ?? {}).length > 0)
      unsupported(`delayed transitions or invocations on ${key}`);
    const on = new Map<string, Transition[][]>();
    for (const [type, list] of node.transitions) {
      if (type.includes('*')) unsupported(`the wildcard event ${type} on ${key}`);
      on.set(type, [compileTransitions(list)]);
    }
    for (const [type, list] of rootOn) {
      if (type.includes('*')) unsupported(`the wildcard event ${type} on the root`);
      on.set(type, [...(on.get(type) ?? []), list]);
    }
    const always = compileTransitions(node.always ?? []);
    states.set(key, {
      final: node.type === 'final',
      tags: [...node.tags],
      output: node.output,
      meta: node.meta,
      on,
      always,
    });
  }
  return states;
}

/**
 * Compiles a flat machine (atomic and final children of the root, no entry or
 * exit actions, no delays, no wildcards) from its own state nodes and
 * implementations into a transition table. Guards and actions are the
 * machine's: named ones are looked up in `machine.implementations`, xstate's
 * `and` / `or` / `not` are compiled into closures over them, and actions must be
 * `assign`s, whose assignment functions are called as xstate calls them.
 * Anything else throws at compile time, so the table cannot drift from the chart.
 */
export function compileMachine<Context extends object, Event extends { type: string }>(
  machine: AnyStateMachine,
): CompiledMachine<Context, Event> {
  const root: AnyStateNode = machine.root;
  const states = compileStates(machine);
  const initialNode = root.initial?.target?.[0] as AnyStateNode | undefined;
  if (!initialNode || initialNode.parent !== root) unsupported('a machine without an initial child state');
  return tableMachine<Context, Event>(states, initialNode.key, machine.config.context as unknown);
}

/** Steps a compiled table: selects transitions as xstate does, applies their assigns, and settles eventless ones. */
function tableMachine<Context extends object, Event extends { type: string }>(
  states: ReadonlyMap<string, StateEntry>,
  initialKey: string,
  contextFactory: unknown,
): CompiledMachine<Context, Event> {
  const stateOf = (value: string): StateEntry => states.get(value) ?? unsupported(`the state value ${value}`);
  const passes = (guard: CompiledGuard | undefined, context: Context, event: Event): boolean =>
    guard === undefined || guard({ context, event });
  // xstate applies each assign to the context the previous one left: `Object.assign({}, context, update)`.
  const apply = (transition: Transition, context: Context, event: Event): Context => {
    let next = context;
    for (const assignment of transition.assignments)
      next = Object.assign({}, next, assignment({ context: next, event }, undefined));
    return next;
  };
  const select = (list: readonly Transition[], context: Context, event: Event) =>
    list.find((transition) => passes(transition.guard, context, event));
  // After a transition, eventless ones run until none is enabled or the state is final; they see the event that started the step.
  const settle = (value: string, context: Context, event: Event): CompiledStep<Context> => {
    for (let state = stateOf(value); !state.final; state = stateOf(value)) {
      const transition = select(state.always, context, event);
      if (!transition) break;
      context = apply(transition, context, event);
      value = transition.target ?? value;
    }
    return { value, context, done: stateOf(value).final };
  };
  const initEvent = { type: 'xstate.init' } as Event;
  return {
    initial: (input) => {
      const context = (typeof contextFactory === 'function' ? contextFactory({ input }) : contextFactory) as Context;
      return settle(initialKey, context, initEvent);
    },
    transition: (value, context, event) => {
      const state = stateOf(value);
      if (state.final) return undefined;
      for (const list of state.on.get(event.type) ?? []) {
        const transition = select(list, context, event);
        if (transition) return settle(transition.target ?? value, apply(transition, context, event), event);
      }
      return undefined;
    },
    isFinal: (value) => stateOf(value).final,
    states: [...states.keys()],
    tagsOf: (value) => stateOf(value).tags,
    metaOf: (value) => stateOf(value).meta,
    outputOf: (value, context) => {
      const { final, output } = stateOf(value);
      if (!final) return undefined;
      // A mapper is called as xstate calls a final state's output: with the context (there is no actor here).
      return typeof output === 'function' ? (output as (args: { context: Context }) => unknown)({ context }) : output;
    },
  };
}
