// internal: Neo4j only: the transactions running now but this one: a writer waits for them before it deletes a retired generation, since a reader may still be reading it.
SHOW TRANSACTIONS YIELD transactionId, currentQuery
WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS'
RETURN transactionId;
