"""The wide path of a wide + deep classifier: a per-label linear layer over the document's tf-idf features."""

import keras

from keras_labelemb.layers.label_head import register_head
from keras_labelemb.layers.linear_head import LinearHead


@register_head("wide")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class WideHead(LinearHead):
    """Per-label linear scores of the document's tf-idf features: `logits = x W + b`.

    `x` `(B, F)` are the l2-normalised tf-idf vectors of the document's word
    n-grams (`keras_labelemb.text.TfidfVectorizer`, sparse or dense), not the
    encoder's vector: this is the linear model a tuned tf-idf SVM is, as a
    head that trains with `model.fit` (logistic regression with an L2
    penalty, `kernel_regularizer`). Alone it is the wide model; as a
    component of a `HybridHead` beside a deep head it is the wide path of a
    wide + deep model (Cheng et al. 2016, "Wide & Deep Learning for
    Recommender Systems"): `document_classifier(encoder, HybridHead([deep,
    WideHead(L)], label_ids), num_features=F)` wires that, and the task's
    `wide_deep` preset trains it. Its weights belong to the labels it was built for, so for
    any other label the hybrid scores with its description-reading
    components alone.

    A head that reads features (`reads_features = True`): builders and
    `HybridHead` give it the document's `"features"`, not `h`. Everything
    else is `LinearHead` (sampled training gathers the `C` columns of `W`).

    Args:
        num_labels: `L`.
        kernel_initializer: initializer of `W`. Default zeros (a linear
            model's usual start; the features are sparse).
        kernel_regularizer: e.g. `keras.regularizers.L2(1e-6)` (the SVM's
            `C`, inverted). Default None.
        bias_initializer: initializer of `b` (e.g. the log-odds of the label prior).

    Example:

    >>> import numpy as np
    >>> head = WideHead(num_labels=3)
    >>> tuple(head(np.ones((2, 10), "float32")).shape)
    (2, 3)
    """

    reads_features = True
    # Its document side is the sparse tf-idf vector itself: no dense index of it is worth building.
    scores_are_inner_products = False

    def __init__(
        self, num_labels, kernel_initializer="zeros", kernel_regularizer=None, bias_initializer="zeros", **kwargs
    ):
        super().__init__(
            num_labels,
            kernel_initializer=kernel_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_initializer=bias_initializer,
            **kwargs,
        )
