"""The council: a panel of personas that reviews a change, and the signed records of what it said."""
