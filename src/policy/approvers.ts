/** Approver ids, or a predicate over the approver id. */
export type Approvers = readonly string[] | ((approvedBy: string | undefined) => boolean);
