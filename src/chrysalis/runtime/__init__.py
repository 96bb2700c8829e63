"""The durable runtime (seed 002): a priority queue of runs, workers on DBOS, recorded steps, signed approvals.

queue       submit, cancel and wake runs from any command (a DBOS client; no worker needed)
worker      ``chrysalis worker``: executes queued runs, recovers the runs of dead workers, fires the schedules
schedules   ``chrysalis schedule``: DBOS schedules whose workflow submits a task once per slot or per run event
cron        a cron expression checked field by field before a schedule is stored
durable     one run's model replies, tool effects, checks and approvals as recorded DBOS steps
runs        the runs as people see them (status, urgency, events), effects started, worker heartbeats
keys        the user's Ed25519 key pair under ``$CHRYSALIS_HOME/keys`` (``chrysalis keys init``)
envelopes   an approval signed for one exact action, with a nonce and an expiry, and its checks
approvals   requests, decisions, nonces and refusals in the runtime's database
database    where all of it lives: SQLite under ``$CHRYSALIS_HOME`` or a shared PostgreSQL
schema      our tables' migrations (Alembic), applied under a lock by every process that opens them
dbos_tables DBOS's tables, migrated by one process at a time (DBOS's own lock gives up after 30 s)
wakeup      DBOS's notification trigger, which wakes a run as soon as its approval is stored
crashpoints fault injection for the kill test
"""
