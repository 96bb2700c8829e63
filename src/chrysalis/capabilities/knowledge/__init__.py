"""The knowledge graph (seed 000's semantic mode): ``kg_add``/``kg_query``/``kg_remove`` over stored triples."""
