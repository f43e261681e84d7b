"""The exercises at the end of the lesson "Common claims, measured" (``lessons/claims.py``).

The kinds and how they are checked: ``ui.exercise_kinds``."""

from __future__ import annotations

from ui.exercise_kinds import Choice, MultipleChoice

EXERCISES = (
    MultipleChoice(
        key="claims_equivariance",
        title="Shuffle the words",
        question=(
            "Self-attention without positions gets the rows of $X$ in a new order, $PX$. Which statement is exact?"
        ),
        latex=r"\mathrm{Attn}(X) = \mathrm{softmax}\!\left(\frac{XW_Q (XW_K)^\top}{\sqrt{d}}\right) XW_V",
        choices=(
            Choice(
                "$\\mathrm{Attn}(PX) = P\\,\\mathrm{Attn}(X)$: the same outputs, in the new order.",
                "The scores become $P S P^\\top$ and softmax works row by row, so each output follows its input "
                "row. That is equivariance; the Attention and order view measures it at rounding level.",
                right=True,
            ),
            Choice(
                "$\\mathrm{Attn}(PX) = \\mathrm{Attn}(X)$: attention is permutation-invariant.",
                "Row t of $\\mathrm{Attn}(PX)$ belongs to the word now at t, not to the word that stood there "
                "before; the view measures differences of the size of the outputs themselves.",
            ),
            Choice(
                "Neither: the outputs change in a way that depends on the order.",
                "Then attention could tell 'dog bites man' from 'man bites dog' on its own, and no positional "
                "encoding would be needed. Without one, only the order of the outputs changes.",
            ),
            Choice(
                "The outputs are unchanged only when the sequence is causal (masked).",
                "A causal mask is itself tied to the order (each query sees the keys before it), so with a mask "
                "even equivariance breaks; without one the outputs are permuted, not unchanged.",
            ),
        ),
        hint="Write the scores of PX as a product and ask what softmax does to a row.",
    ),
    MultipleChoice(
        key="claims_linear_shift",
        title="Linear in what?",
        question="For the sinusoidal encoding, which of these is true?",
        latex=r"\sin(a + b) = \sin a\cos b + \cos a\sin b",
        choices=(
            Choice(
                "For each offset k there is a matrix $M_k$ with $PE_{p+k} = M_k\\,PE_p$ for every p, but no one "
                "matrix maps the pair $[PE_p, PE_k]$ to $PE_{p+k}$.",
                "With k fixed, cos b and sin b are constants, so the formula is linear in $PE_p$; with k free it "
                "multiplies entries of $PE_p$ by entries of $PE_k$ (bilinear). The Sinusoids view fits the best "
                "linear map of the pair and leaves most of the variance unexplained.",
                right=True,
            ),
            Choice(
                "$PE_{p+k} = PE_p + PE_k$.",
                "At p = k = 0 that would give $PE_0 = 2\\,PE_0$, yet $PE_0$ has cosines equal to 1. Angles add; "
                "sines and cosines of them do not.",
            ),
            Choice(
                "One matrix W maps the concatenation $[PE_p, PE_k]$ to $PE_{p+k}$, fitted once for all p and k.",
                "A linear map cannot form the products sin a cos b. The least-squares fit in the Sinusoids view "
                "errs by about 1 on the fast dimensions.",
            ),
            Choice(
                "$PE_{10} - PE_5 = PE_5 - PE_0$, which is what 'relative' means.",
                "Equal steps along a circle are not equal vectors; the view measures a difference of more than 1 "
                "on dimension 0 of a correct sinusoid.",
            ),
        ),
        hint="Hold b fixed in the angle-addition formula. What is left is a function of sin a and cos a only.",
    ),
    MultipleChoice(
        key="claims_deberta_scale",
        title="Three terms, one scale",
        question=(
            "DeBERTa adds three attention terms (content to content, content to position, position to content), "
            "each a dot product of d-vectors with unit-variance entries and uncorrelated with the others. By "
            "what must the sum be divided so that the logits have unit variance, as in ordinary attention?"
        ),
        choices=(
            Choice(
                "$\\sqrt{3d}$",
                "Each term has variance d and uncorrelated variances add: 3d in all, standard deviation "
                "$\\sqrt{3d}$. DeBERTa's eq. 4 divides by exactly this (He et al. 2020).",
                right=True,
            ),
            Choice(
                "$\\sqrt{d}$, as in every Transformer",
                "That is right for one dot product. For the sum of three the Biases view measures a standard "
                "deviation of about 1.7, i.e. $\\sqrt{3}$.",
            ),
            Choice(
                "$3d$",
                "Variance is the square of the spread: dividing by 3d would shrink the logits to a standard "
                "deviation of about $1/\\sqrt{3d}$, far below 1.",
            ),
            Choice(
                "$3\\sqrt{d}$",
                "That would be right if the three terms always moved together (perfectly correlated). They do "
                "not, so their spreads add in squares, not directly.",
            ),
        ),
        hint="Variances of uncorrelated terms add. What is the variance of one term?",
    ),
    MultipleChoice(
        key="claims_t5_table",
        title="How big is T5's table?",
        question=(
            "T5 is trained on sequences of 512 tokens. How many learned relative-position numbers does one "
            "attention head of T5 have?"
        ),
        choices=(
            Choice(
                "32, one per bucket, whatever the length",
                "T5 buckets the offset: distances below 8 each get a bucket per direction, farther ones share "
                "logarithmically wider buckets up to 128, and the table is shared by the layers. The Biases view "
                "measures the bucket widths.",
                right=True,
            ),
            Choice(
                "2 x 512 - 1 = 1023, one per possible offset",
                "That is an unclipped table of every offset, which would grow with the length; T5 never indexes "
                "by the raw offset.",
            ),
            Choice(
                "2k + 1 = 257 for a clipping distance k = 128",
                "That is Shaw et al.'s clipped table with one entry per offset up to k. T5 uses 32 buckets of "
                "growing width instead.",
            ),
            Choice(
                "None: T5 uses the sinusoidal encoding",
                "T5 has no position vectors at all; it adds a learned scalar per bucket and head to the logits "
                "(Raffel et al. 2019, sec. 2.1).",
            ),
        ),
        hint="The number of buckets is a setting of T5, not a function of the training length.",
    ),
)
