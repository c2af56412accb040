"""dtypes with NEP 50 promotion, and shapes with static and symbolic dims."""
