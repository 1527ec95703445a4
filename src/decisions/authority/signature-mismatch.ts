// What a signature that does not verify may mean, said the same wherever one is checked: the snapshot or a store was
// altered, or, the usual cause in a first hour, the run is read by an agent with another decisionSecret.

/** The end of a message about a signature in a snapshot that does not verify. */
export const SNAPSHOT_ALTERED_OR_OTHER_SECRET =
  "the snapshot was altered, or was signed with a different decisionSecret (check that the agent's decisionSecret is the one of the agent that made the run)";

/** The same for a grant: altered in the grant store, or signed by an agent with another secret. */
export const GRANT_ALTERED_OR_OTHER_SECRET =
  "it was altered in the grant store, or signed with a different decisionSecret (check that the agent's decisionSecret is the one of the agent that granted it)";
