"""Source -> typed program: read a function's AST and interpret it over abstract values."""
