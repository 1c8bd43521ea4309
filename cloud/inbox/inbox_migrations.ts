/**
 * The events and inboxes' table: its steps of each of the cloud's migrations, by version. `cloud/database` applies
 * them in its one ordered list; never edit a step that has shipped: add one to a new version.
 *
 * @module
 */

/** The events and inboxes' table: the statements of each cloud migration that has some, by version. */
export const inboxMigrationSteps: Readonly<Record<number, readonly string[]>> = {
  3: [
    // Each event goes to exactly one inbox, so an event and its inbox item are
    // one row; AUTOINCREMENT keeps inbox ids (the cursors) from ever being reused.
    `CREATE TABLE cloud_events (
        inbox_id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        event_id TEXT NOT NULL,
        type TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL,
        deliveries INTEGER NOT NULL DEFAULT 0,
        acked_at TEXT,
        UNIQUE (project_id, event_id)
      )`,
    "CREATE INDEX cloud_events_waiting ON cloud_events (project_id, agent_id, inbox_id) WHERE acked_at IS NULL",
    "CREATE INDEX cloud_events_acknowledged ON cloud_events (acked_at) WHERE acked_at IS NOT NULL",
  ],
  8: [
    // The dashboard's view of one inbox's acknowledged items, newest first, and their count; partial like
    // cloud_events_waiting, so the agents' polls keep the small index of waiting items to themselves.
    `CREATE INDEX cloud_events_acknowledged_by_agent ON cloud_events (project_id, agent_id, inbox_id)
        WHERE acked_at IS NOT NULL`,
  ],
  19: [
    // The inbox as a queue. The table is rebuilt (SQLite cannot drop a UNIQUE constraint) so that a replayed item
    // (`replay_of`, the inbox id it copies) may hold its original's eventId; eventIds stay unique among the rest.
    // A leased item is hidden from every poll of its agent until `lease_expires_at` (an ISO 8601 time compared with
    // the clock, never a timer); an item released with a delay keeps the time and no lease id. An item handed out
    // `max_deliveries` times without an ack is a dead letter (`dead_at`, `dead_reason`).
    `CREATE TABLE cloud_events_v17 (
        inbox_id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT NOT NULL REFERENCES cloud_projects (id),
        event_id TEXT NOT NULL,
        type TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL,
        deliveries INTEGER NOT NULL DEFAULT 0,
        acked_at TEXT,
        lease_id TEXT,
        lease_expires_at TEXT,
        dead_at TEXT,
        dead_reason TEXT,
        replay_of INTEGER
      )`,
    `INSERT INTO cloud_events_v17 (inbox_id, project_id, event_id, type, agent_id, payload, created_at, deliveries,
        acked_at) SELECT inbox_id, project_id, event_id, type, agent_id, payload, created_at, deliveries, acked_at
        FROM cloud_events`,
    // Inbox ids are never reused: the new table continues the old one's sequence, purged rows included.
    `INSERT INTO sqlite_sequence (name, seq) SELECT 'cloud_events_v17', seq FROM sqlite_sequence
        WHERE name = 'cloud_events' AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'cloud_events_v17')`,
    `UPDATE sqlite_sequence SET seq = MAX(seq, (SELECT seq FROM sqlite_sequence WHERE name = 'cloud_events'))
        WHERE name = 'cloud_events_v17' AND EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'cloud_events')`,
    "DROP TABLE cloud_events",
    "ALTER TABLE cloud_events_v17 RENAME TO cloud_events",
    "CREATE UNIQUE INDEX cloud_events_event ON cloud_events (project_id, event_id) WHERE replay_of IS NULL",
    "CREATE INDEX cloud_events_waiting ON cloud_events (project_id, agent_id, inbox_id) WHERE acked_at IS NULL",
    "CREATE INDEX cloud_events_acknowledged ON cloud_events (acked_at) WHERE acked_at IS NOT NULL",
    `CREATE INDEX cloud_events_acknowledged_by_agent ON cloud_events (project_id, agent_id, inbox_id)
        WHERE acked_at IS NOT NULL`,
    "CREATE UNIQUE INDEX cloud_events_lease ON cloud_events (lease_id) WHERE lease_id IS NOT NULL",
    "CREATE INDEX cloud_events_dead ON cloud_events (project_id, agent_id, inbox_id) WHERE dead_at IS NOT NULL",
    // The lease ends of an inbox: the expired leases a poll buries at the limit and the next end a long poll waits
    // for, read without scanning the inbox's waiting items.
    `CREATE INDEX cloud_events_lease_ends ON cloud_events (project_id, agent_id, lease_expires_at)
        WHERE lease_expires_at IS NOT NULL AND acked_at IS NULL`,
    // The project's inbox policy (`PUT /v1/sdk/policy { inbox: { maxDeliveries } }`); no row: 5.
    `CREATE TABLE cloud_inbox_policy (
        project_id TEXT PRIMARY KEY REFERENCES cloud_projects (id),
        max_deliveries INTEGER NOT NULL
      )`,
  ],
};
