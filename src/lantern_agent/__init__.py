"""Vehicle side: agent node, model backends, controllers."""
