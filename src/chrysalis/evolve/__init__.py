"""Self-improvement: typed signatures and modules that compile themselves (seed 000's llm layer).

Signature / InputField / OutputField   what a call takes and gives (signature.py)
Module / Predict / ChainOfThought      how it is called, as an immutable value (module.py, prediction.py, predict.py)
compile -> CompiledModule              bootstrap, mutation, MAP-Elites, reflection (compile.py)
ModuleArchive / Phenotype              the variants, their bins and elites, in SQLite (archive.py)
select                                 which variant a priority picks (selection.py)
"""
