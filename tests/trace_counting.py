"""How many times a model's first `fit` traces its train step (TensorFlow traces a step again when the first
trace created variables)."""


def first_fit_traces(model, x, y):
    """Fits `model` (compiled) on `x`, `y` for one epoch in batches of 4; returns how often `train_step` ran as
    Python, which under a compiled trainer is how often it was traced."""
    traces = []
    train_step = model.train_step

    def counted(data):
        traces.append(1)
        return train_step(data)

    model.train_step = counted
    model.fit(x, y, batch_size=4, verbose=0)
    return len(traces)
