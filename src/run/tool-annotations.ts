import { z } from 'zod';
import type { ToolAnnotations } from './types.js';

/** `ToolAnnotations` as given to `defineTool` and as stored on a request. */
export const toolAnnotationsSchema = z.object({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/**
 * The badges every surface shows for a tool's annotations, in one order and
 * one wording: `read-only`, `destructive`, `idempotent`, `open-world`. A
 * hint left out says nothing, so it shows nothing.
 *
 * @example
 * annotationBadges({ readOnlyHint: false, destructiveHint: true }); // ['destructive']
 */
export function annotationBadges(annotations: ToolAnnotations | undefined): string[] {
  if (annotations === undefined) return [];
  const badges: string[] = [];
  if (annotations.readOnlyHint === true) badges.push('read-only');
  if (annotations.destructiveHint === true && annotations.readOnlyHint !== true) badges.push('destructive');
  if (annotations.idempotentHint === true) badges.push('idempotent');
  if (annotations.openWorldHint === true) badges.push('open-world');
  return badges;
}
