"""The durable runtime (seed 002): signed approvals now; the priority queue and its workers come next.

keys       the user's Ed25519 key pair under ``$CHRYSALIS_HOME/keys`` (``chrysalis keys init``)
envelopes  an approval signed for one exact action, with a nonce and an expiry, and its checks
"""
