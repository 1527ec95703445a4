// The hook's answer as Claude Code reads it on stdout (exit code 0), per event (its hooks reference): PreToolUse
// decides with `permissionDecision` allow, deny or ask; PermissionRequest with `decision.behavior` allow or deny, and
// leaves an ask to Claude Code's own permission dialog, saying why in `systemMessage`.
import type { Verdict } from './hook-verdict.js';

/** The JSON to print for `verdict` on `event`. */
export function hookOutput(event: 'PreToolUse' | 'PermissionRequest', verdict: Verdict): object {
  const updatedInput = verdict.decision === 'allow' ? verdict.updatedInput : undefined;
  if (event === 'PreToolUse') {
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: verdict.decision,
        permissionDecisionReason: verdict.reason,
        ...(updatedInput === undefined ? {} : { updatedInput }),
      },
    };
  }
  if (verdict.decision === 'ask') return { systemMessage: verdict.reason };
  return {
    hookSpecificOutput: {
      hookEventName: 'PermissionRequest',
      decision:
        verdict.decision === 'allow'
          ? { behavior: 'allow', ...(updatedInput === undefined ? {} : { updatedInput }) }
          : { behavior: 'deny', message: verdict.reason },
    },
  };
}
