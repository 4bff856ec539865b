"""The questionnaires' self-checks, notebook by notebook (see :mod:`sbertlib.workbook.quiz`).

This file holds the right answers. It is installed with ``sbertlib``, so a student who looks can read
them, as they can read the checks' reference code: the self-checks are for learning, not grading.
Each check follows the written answer in the notebook's lecturer-only ``answers`` cell; the figures
are the ones the notebooks print or cite from the paper (Reimers & Gurevych, 2019). Wrong options are
the usual misconceptions, about as long as the right one; their hints point at the idea without
naming the right option. ``choice(prompt, right option, {wrong option: hint})``: the display order
of the options is a fixed shuffle, not the order written here.
"""
from __future__ import annotations

from .quiz import choice, discuss, number  # noqa: F401  (discuss: for an open question)

QUESTIONS = {
    # ---------------------------------------------------------------- 00 · set-up and tour
    "00.1a": choice(
        "What does `encode` return for a list of n sentences?",
        "An array of shape (n, dim): one vector per sentence",
        {"An array of shape (n, T, dim): one vector per token":
            "That is what the backbone gives before pooling. What does pooling do to the token axis?",
         "An (n, n) matrix: each sentence's cosine with every other":
            "That is what you compute from encode's output (cos_sim), one step later.",
         "One vector of shape (dim,) summing up the whole list":
            "Could you then compare sentence 3 with sentence 5?"}),
    "00.1b": choice(
        "Comparing all n sentences with each other then needs …",
        "n network passes and one matrix product",
        {"n(n−1)/2 network passes, one per pair":
            "That is the cross-encoder's count (notebook 01). Which step of the bi-encoder runs the network?",
         "n² network passes, one per cell of the matrix":
            "Does comparing two vectors need the network at all?"}),
    "00.2": choice(
        "Why must the diagonal be left out when looking for the most similar pair?",
        "Each entry is a sentence with itself: always 1, so it always wins",
        {"The matrix is symmetric, so the diagonal is counted twice":
            "Symmetry repeats (i, j) as (j, i), off the diagonal; each diagonal entry appears once.",
         "Its entries are undefined (NaN), which would break the search":
            "cos(a, a) = a·a / (|a| |a|): is anything undefined for a vector that is not zero?",
         "Its entries are 0, which would drag the search down":
            "Compute cos(a, a) for any non-zero vector a."}),
    "00.3": choice(
        "0.93 for guitar / instrument, 0.90 for guitar / stock market. What should you look at instead of the 0.93?",
        "The gap between related and unrelated pairs' cosines",
        {"Whether 0.93 is above a threshold such as 0.9":
            "The unrelated pair scores 0.90 too: which threshold would separate them reliably?",
         "The lengths of the two sentence vectors":
            "A cosine already ignores lengths. What else would you compare it with?",
         "Nothing: 0.93 > 0.90, the order is right, that settles it":
            "The order is right, but by 0.03. Section 3 of the notebook says what makes a cosine useful for "
            "search and clustering."}),
    "00.4": choice(
        "Offline, why train a random-weight BERT rather than fine-tune the packaged all-MiniLM-L6-v2?",
        "MiniLM is already trained on a billion pairs: a few thousand would only nudge it",
        {"MiniLM is too large to fine-tune on a 2-core CPU within the time budget":
            "It is a 6-layer model; size is not the reason. What has MiniLM already learnt?",
         "MiniLM is the paper's SBERT, whose published weights must stay unchanged":
            "Re-read 'Stand-ins': who trained MiniLM, and is it the paper's model?",
         "A random BERT ends up better than MiniLM after training":
            "It does not. The point is what a before/after comparison can show."}),
    "00.5": choice(
        "Why can the offline profile not follow the paper's recipe?",
        "No pre-trained BERT and no NLI train split can be had offline",
        {"The paper's classification objective needs a GPU to train":
            "The laptop profile runs it on a CPU. What is missing offline?",
         "The paper does not publish its training recipe":
            "Its training details (quoted in notebook 03) give batch, optimizer, rate and warm-up. What cannot be "
            "had offline?",
         "The paper trains with MNRL, which needs more data than that":
            "Which objective does the paper train NLI with (Figure 1)? MNRL is the workbook's choice offline."}),
    "00.6": choice(
        "A row tagged [stand-in] sits beside the paper's row. How do you compare them?",
        "Compare trends (before vs after, which setting wins), not levels",
        {"Ignore the row: it is an estimate, not a measurement":
            "Every row of ours comes from running code. 'Stand-in' says something about the model.",
         "Its level should match the paper's if our code is right":
            "A different network on different data: would an equal level be evidence, or a coincidence?",
         "Subtract a fixed offset from our row, then compare levels":
            "What offset would turn a random 2-layer BERT into bert-base? The measurement is the same, not the model."}),

    # ---------------------------------------------------------------- 01 · broken baselines
    "01.1a": number(
        "How many network passes does a cross-encoder need to find the most similar pair among n = 10,000 sentences?",
        49_995_000, 0,
        "Every unordered pair of two different sentences needs a pass of its own.",
        "Count each pair once and leave out pairs of a sentence with itself.",
        {100_000_000: "n² counts ordered pairs and each sentence with itself.",
         99_990_000: "(A, B) and (B, A) are the same pair: count it once.",
         50_005_000: "A sentence paired with itself is not a pair to score."}),
    "01.1b": choice(
        "What, rather than the speed of one pass, decides the 65 hours?",
        "Pairs grow as n², sentences as n",
        {"The V100 is an old, slow GPU":
            "A GPU ten times faster would still need 6.5 hours. What would ten times more sentences do?",
         "A pair input is twice as long, so each pass is slow":
            "Twice as long is a factor of about two. What grows with n?"}),
    "01.2": choice(
        "A model's cosines all lie between 0.9 and 1.0. What does Spearman's ρ make of that by itself?",
        "Nothing: only the order of the cosines counts",
        {"It must be low: cosines near 1 say every pair is similar":
            "Spearman compares ranks. Does squeezing the cosines into a band change their order?",
         "It must be high, because all the cosines are high":
            "Spearman never sees the values, only their order.",
         "It is undefined for values in such a narrow range":
            "Ranks exist for any set of numbers, however close together."}),
    "01.3": choice(
        "What was the [CLS] output trained for in BERT's pre-training?",
        "Next-sentence prediction",
        {"Masked-language modelling":
            "Masked tokens are predicted from their own output vectors. Which pre-training task needs one vector "
            "for a whole input?",
         "Sentence similarity":
            "If it were, Table 1 would show it near SBERT, not at 16.50.",
         "Nothing: it is never trained":
            "[CLS] feeds one of BERT's two pre-training objectives. Which one reads a pair of sentences at once?"}),
    "01.4a": choice(
        "How did you measure anisotropy?",
        "The mean cosine over all pairs of different sentences",
        {"The mean length of the sentence vectors":
            "Anisotropy is about directions, and a cosine ignores lengths.",
         "The mean of the whole cosine matrix, diagonal included":
            "What does each sentence compared with itself add to the mean?",
         "Spearman's ρ of the cosines against the gold scores":
            "That is the STS score and needs gold labels; anisotropy needs none."}),
    "01.4b": choice(
        "What did Li et al. (2020) find, and what did they do about it?",
        "Anisotropic, partly from word frequency; a learned map to an isotropic Gaussian",
        {"Isotropic, so cosine works on BERT's vectors out of the box":
            "Then why would they need a fix at all? Re-read section 3's literature.",
         "Anisotropic; they fine-tuned BERT on NLI pairs so that cosine means similarity":
            "That is SBERT's answer. Li et al. learn a map of the vectors, with no labels.",
         "Anisotropic in GPT-2 only; BERT's sentence vectors spread out in all directions":
            "Ethayarajh compared BERT, ELMo and GPT-2; Li et al. looked at BERT's sentence embeddings."}),
    "01.5": choice(
        "Subtracting the mean vector brings unrelated pairs' cosines to about 0. Why is that not yet a good encoder?",
        "It removes a shared direction but teaches nothing about meaning",
        {"It is: that post-processing is exactly what SBERT does":
            "SBERT does not post-process vectors. What does it change instead?",
         "It makes every cosine 0, related pairs' too":
            "Only the shared part is removed; look at the right-hand panel again.",
         "It needs the whole corpus in advance; otherwise it would be":
            "A practical snag, but given the corpus, would the order of the pairs improve much?"}),
    "01.6": choice(
        "What can a logistic regression on averaged BERT vectors do that cosine similarity cannot?",
        "Give each dimension its own weight",
        {"Normalise the vectors to unit length":
            "Cosine normalises too. What does a classifier fit that a cosine holds fixed?",
         "Read the tokens of both sentences together":
            "SentEval's classifier sees one fixed sentence vector, not the tokens."}),

    # ---------------------------------------------------------------- 02 · the siamese network
    "02.1": choice(
        "If mean pooling divided by the padded length T, what would happen to a short sentence beside a long one?",
        "Its vector would shrink, by a factor that depends on the batch",
        {"Nothing, since the mask already zeroes the padded positions":
            "Zeroing removes padding from the sum; what does dividing by T instead of the real length do to the mean?",
         "Its vector would come out as NaN":
            "NaN comes from dividing by zero: when would that happen?",
         "Its vector would grow longer, since padding adds to the sum":
            "Dividing by a larger number than the count of real tokens …"}),
    "02.2": choice(
        "Max pooling with padded positions set to 0 instead of −∞ goes wrong when a dimension's real values are …",
        "all negative",
        {"all positive":
            "Try real values 2 and 3 with a padded 0: which wins the max?",
         "of mixed signs":
            "Try −1 and 2 with a padded 0: which wins the max?",
         "never: the mask keeps padding out":
            "max itself knows nothing of the mask: what values sit at the padded positions?"}),
    "02.3a": choice(
        "Why would u − v (no absolute value) make the classifier depend on which sentence comes first?",
        "It changes sign when the sentences swap",
        {"It is zero for paraphrases, whatever the order":
            "That holds for |u − v| too. What happens to u − v if A and B trade places?",
         "A linear layer cannot read negative numbers":
            "A linear layer takes any real numbers.",
         "It has a different size from |u − v|":
            "Both have n numbers."}),
    "02.3b": number(
        "By how many points does adding |u−v| to (u, v) raise the STSb dev score in Table 6?",
        14.74, 0.02,
        "Read Table 6's rows (u, v) and (u, v, |u−v|).",
        "Read Table 6's rows (u, v) and (u, v, |u−v|).",
        {11.40: "That is what u*v adds to (u, v). Which row adds |u−v|?"}),
    "02.4": choice(
        "After NLI training the classifier W_t is thrown away. How are two sentences compared at inference?",
        "Each encoded once, the two vectors compared by cosine",
        {"By the classifier's probability of entailment":
            "That would need W_t, which is gone, and both sentences at once. What does Figure 2 show?",
         "By the pooling layer, which holds what was learnt":
            "Mean pooling has no parameters. Where did the learning go?",
         "Both through BERT together, as in a cross-encoder":
            "Then there would be no vector per sentence, and search would be as slow as in notebook 01."}),
    "02.5a": choice(
        "Which is a reason to tie the weights of the two branches?",
        "cos(u, v) is the same in both orders; one vector per sentence",
        {"Tied weights halve each gradient, so training is more stable":
            "Section 4 measured it: the two branches' gradients add up in one .grad.",
         "The paper shows that tied weights score higher":
            "The paper gives no reason for tying them.",
         "Untied towers cannot be trained on pairs at all":
            "Dual encoders such as DPR are trained on pairs with two towers."}),
    "02.5b": choice(
        "Where is a dual encoder with two separately trained towers a sensible choice?",
        "Question → passage retrieval",
        {"STS, where a pair has no order":
            "If the pair has no order, what would two towers break?",
         "Clustering one corpus":
            "With two towers, which one encodes the corpus?",
         "Paraphrase mining in one corpus":
            "Every sentence is compared with every other of the same corpus: which tower encodes them?"}),
    "02.6": number(
        "How many trainable numbers does the classifier W_t have for n = 768 and k = 3, bias included?",
        6915, 0,
        "The features are (u, v, |u−v|), each of size n, and there is one bias per label.",
        "One weight per feature and label, plus one bias per label.",
        {6912: "Almost: add the bias.",
         2307: "The classifier reads 3n features, not n.",
         2304: "The classifier reads 3n features, and it has a bias."}),

    # ---------------------------------------------------------------- 03 · fine-tuning on NLI
    "03.1": choice(
        "What happens to the updates if your loop forgets optimizer.zero_grad()?",
        "Gradients pile up: each step uses the sum of all so far",
        {"Nothing: each backward() call overwrites the old .grad":
            "backward() adds into .grad; it does not overwrite it.",
         "The loss drops to zero after the first step and stays there":
            "Why would the loss vanish? Think about what is in .grad at step 2.",
         "The optimizer raises an error at step 2":
            "PyTorch will not complain. What is in .grad at the second step?"}),
    "03.2a": number(
        "epochs = 2, 1,000 examples, batch 16: how many optimizer steps?",
        126, 0,
        "Every batch is a step, the last smaller one too, in every epoch.",
        "A step is a batch, and the batches are cut per epoch.",
        {124: "The last, smaller batch of each epoch is still a step: round up, per epoch.",
         125: "Batches are cut per epoch: round up the batches of one epoch, then take two epochs.",
         63: "That is one epoch."}),
    "03.2b": number(
        "And how many warm-up steps with warmup_ratio = 0.1?",
        13, 0,
        "The warm-up is a share of all steps, both epochs, rounded up.",
        "The warm-up is 10% of all steps, rounded up.",
        {12: "The schedule rounds the warm-up up, not down.",
         7: "The warm-up is 10% of all steps, both epochs together."}),
    "03.2c": number(
        "What learning rate does the very first step use?",
        0, 0,
        "A learning rate below zero would climb the loss.",
        "Look at the warm-up factor step / warmup at the very first step, counting steps as the scheduler does.",
        {2e-5: "That is the peak rate, reached at the end of the warm-up."}),
    "03.3a": number(
        "MNRL with a batch of 64 triplets: how many candidates does each anchor compete against (the right one included)?",
        128, 0,
        "Every positive and every hard negative of the batch is a candidate.",
        "The candidates are the batch's positives and negatives; anchors are not candidates.",
        {64: "Each triplet brings two sentences to the candidate set, not one.",
         127: "That is the number of negatives. Count the right candidate too.",
         192: "Anchors are not candidates: they are the rows of the score matrix."}),
    "03.3b": choice(
        "Why does a bigger batch usually give better embeddings with MNRL?",
        "Each anchor gets more, and harder, negatives",
        {"Bigger batches take larger gradient steps":
            "The loss is a mean over the batch. What does each anchor compete against?",
         "A bigger batch sees the data more often":
            "One epoch sees every example once, whatever the batch size.",
         "It does not: batch size only changes speed":
            "In MNRL the batch is part of the task itself: every other sentence is a negative."}),
    "03.4": choice(
        "Why is the contradiction hypothesis a good hard negative for its premise?",
        "It shares words and topic with the premise but not its meaning",
        {"It is unrelated to the premise, so it is easy to push away":
            "An unrelated sentence would be an easy negative. What makes a negative hard?",
         "NLI gives it a gold similarity of 0, the lowest score":
            "NLI labels entailment, neutral or contradiction, not similarity scores.",
         "It is usually longer than the entailed hypothesis":
            "Length is not the point. Compare the words of premise and contradiction."}),
    "03.5": choice(
        "Why did the classification objective not help the random encoder here, while it works from pre-trained BERT "
        "with ~1M pairs?",
        "It reaches the encoder only through a classifier that learns little here",
        {"It never computes a cosine, so it cannot change the cosines":
            "The cosine did change — it got worse. The classifier reads |u−v|: the encoder moves.",
         "Its loss near ln 3 shows the classifier was already perfect at NLI":
            "ln 3 is the loss of a uniform guess over three labels.",
         "It only works with CLS pooling, and the workbook pools by the mean":
            "The paper trains it with mean pooling."}),
    "03.6": choice(
        "Which of these does fit do that your train_loop does not?",
        "Keep the best model by dev-set evaluation",
        {"Zero the gradients before every step":
            "Your loop does that too (question 1).",
         "Warm the rate up, then decay it linearly":
            "Your loop has that schedule too (question 2).",
         "Clip the gradient norm before each step":
            "Your loop clips too: it was part of the exercise."}),
    "03.7": choice(
        "all-MiniLM-L6-v2 got worse after the softmax objective on 500 NLI pairs. What should your colleague try?",
        "MNRL or regression, a lower rate, fewer steps, held-out comparison",
        {"A higher learning rate, so that the 500 pairs count for more":
            "Compare the two runs of section 6: which rate moved the model further from where it was good?",
         "More epochs of the same objective on the same 500 pairs":
            "More steps on the same few pairs: more adding, or more overwriting?",
         "A bigger classifier head over (u, v, |u−v|)":
            "The head is thrown away after training. What does the objective ask of the cosines?"}),

    # ---------------------------------------------------------------- 04 · STS evaluation
    "04.1a": choice(
        "What makes the evaluation of Table 1 'unsupervised'?",
        "No parameter is fitted to STS data",
        {"No labels of any kind were used in training":
            "The NLI model was trained with NLI labels. Which data is 'unsupervised' about?",
         "Spearman's ρ needs no gold scores":
            "Spearman compares the cosines with the gold human scores."}),
    "04.1b": choice(
        "Why is the offline NLI model's SICK-R score not unsupervised?",
        "Its NLI training data includes SICK train",
        {"SICK-R is harder than the other sets":
            "Hard or easy, what matters is what the model has seen.",
         "SICK scores run from 1 to 5, not 0 to 5":
            "Spearman ignores the scale.",
         "SICK-R was used to pick the learning rate":
            "Where did the offline NLI triplets come from? Notebook 00 lists the offline data."}),
    "04.2a": choice(
        "Why can the pooled `all` score reward a model just for telling the subsets of a year apart?",
        "Knowing the subset already orders many pooled pairs",
        {"It averages subsets, so a small one counts as much":
            "That describes an average over subsets. `all` computes one Spearman over every pair pooled.",
         "It uses Pearson's r where wmean uses Spearman":
            "Both conventions use Spearman.",
         "It drops the pairs whose gold scores are tied":
            "Ties get average ranks in both conventions."}),
    "04.2b": choice(
        "Which convention (all or wmean) does the paper state for STS12–16?",
        "Neither: the paper does not say",
        {"all, pooling every pair of a year":
            "all is sentence-transformers' and MTEB's convention, and ours. What does the paper itself say?",
         "wmean, averaging subsets by size":
            "wmean is one of SentEval's aggregates. What does the paper itself say?"}),
    "04.3": choice(
        "Why must tied gold scores share the average of their ranks?",
        "Otherwise file order would rank pairs the annotators tied",
        {"Spearman is undefined for tied values without average ranks":
            "Ordinal ranks are defined; what do they add that the annotators did not say?",
         "Average ranks always give a higher, more flattering score":
            "They can move the score either way; the reason is what the gold scores mean."}),
    "04.4": choice(
        "Why read 'untrained' against 'after the NLI lesson' rather than our NLI row against SBERT-NLI-base?",
        "Only the training differs between our two rows",
        {"The paper's numbers cannot be trusted":
            "They are the paper's own measurements. What differs between our model and the paper's?",
         "Our NLI row is always higher than the paper's":
            "It is not (offline it is a random 2-layer BERT on 6.5k triplets). What can our own two rows show?",
         "The paper used a different STSb test set":
            "The test set is the same. What else differs between our model and the paper's?"}),
    "04.5": choice(
        "Which pairs does a bi-encoder tend to rate too similar?",
        "Shared words, but one word changes the meaning",
        {"Paraphrases written in entirely different words":
            "Those tend to be rated too dissimilar: which way does word overlap push a cosine?",
         "Pairs about unrelated topics":
            "Unrelated pairs share little; which pairs share a lot yet differ in meaning?",
         "Very long pairs, whatever words they use":
            "Length alone is not it. It compresses each sentence alone: what can it not look for in the other?"}),
    "04.6": choice(
        "STS12–16 are samples of 500 pairs offline. How much would you trust a difference of half a point?",
        "Hardly: sampling (2–3 points) and seeds (up to 0.81) move more",
        {"Fully: Spearman is exact on the sample":
            "Exact on this sample; how much does the score move from one sample of 500 pairs to another?",
         "Fully: both rows were scored on the same pairs":
            "The same pairs take away some sampling noise. How much does one training run vary with its seed "
            "(Table 2, Section 4.2)?",
         "Somewhat: it is about one standard error":
            "Section 1 says how big one standard error is on 500 pairs."}),
    "04.7": choice(
        "For which encoder does ranking pairs by u·v give exactly the same Spearman as ranking by cosine?",
        "One whose vectors all have length 1",
        {"Any encoder that pools by the mean":
            "The untrained network of this notebook pools by the mean, and its vectors have different lengths.",
         "Any encoder trained for similarity":
            "Training alone does not fix lengths. When is u·v equal to cos(u, v)?",
         "None: the two always rank differently":
            "cos(u, v) = u·v / (|u| |v|): when are the two the same?"}),
    "04.8": choice(
        "A model fine-tuned on STSb train scores well on STS13. Why can it not stand beside Table 1's SBERT-NLI-base?",
        "STSb train holds ~40% of STS13's pairs, with scores",
        {"STS13's scores use another scale than STSb's":
            "Spearman compares ranks: the scale does not matter. What did section 5's table count?",
         "STSb train shares STS13's topics, not its pairs":
            "Section 5 counted pairs held as pairs, not topics: how many of STS13's did it find?",
         "Our model is far smaller than the paper's BERT-base":
            "Size changes the score, not what the model saw. What does Table 1 ask of its models?"}),

    # ---------------------------------------------------------------- 05 · regression and two stages
    "05.1": choice(
        "Why are STSb's 0–5 gold scores divided by 5 before training the cosine against them?",
        "A cosine cannot reach targets above 1",
        {"To make the Spearman correlation higher":
            "Spearman ignores the scale. What does the loss compare the cosine with?",
         "Mean-squared error only accepts targets in [0, 1]":
            "MSE accepts any numbers. Which numbers can a cosine reach?",
         "So the scores match the three NLI labels":
            "The regression objective has no classifier."}),
    "05.2": choice(
        "Which objective looks at the cosine?",
        "The regression objective",
        {"The classification objective":
            "Its classifier reads (u, v, |u−v|). Where would a cosine appear?",
         "Both of them":
            "One of them improves the cosine only as a side effect.",
         "Neither of them":
            "One of them is the cosine against gold/5."}),
    "05.3a": number(
        "Table 2, bert-base: by how many points does NLI then STSb beat STSb alone?",
        0.68, 0.01,
        "Subtract SBERT-STSb-base from SBERT-NLI-STSb-base.",
        "Subtract SBERT-STSb-base from SBERT-NLI-STSb-base.",
        {-0.68: "The two-stage model is the better one: subtract the other way round."}),
    "05.3b": choice(
        "What reason does the paper give for the two-stage model's gain?",
        "None: Section 4.2 reports the gain without a reason",
        {"STSb is larger than the NLI data it follows":
            "Compare the sizes: 5,749 STSb pairs against ~1M NLI pairs.",
         "NLI training fixes the cosines' scale to gold/5":
            "NLI training never asks for any scale. Does the paper give a reason at all?",
         "The gain is within the noise of the 10 seeds":
            "The gain is about 3.5–4 seed standard deviations. Does the paper explain it?"}),
    "05.4": choice(
        "Spearman ignores the cosines' scale. Which quantity shows what the regression objective does to it?",
        "The mean |cos − gold/5|",
        {"Pearson's r of cosine and gold":
            "Pearson ignores any linear rescaling of the cosines too.",
         "Spearman on the training pairs":
            "Still a rank correlation.",
         "The number of training steps":
            "That describes the run, not the cosines."}),
    "05.5": choice(
        "Table 2's BERT-base rows about tie SBERT on STSb alone (84.30 vs 84.67) and beat it after NLI + STSb "
        "(88.33 vs 85.35). What are they?",
        "Cross-encoders: no sentence vectors",
        {"Larger bi-encoders (bert-large)":
            "Would a bi-encoder that good be unusable for search?",
         "Bi-encoders trained for more epochs":
            "Would longer training make a bi-encoder unusable for search?",
         "SBERT with max instead of mean pooling":
            "Pooling gives a sentence vector; what would stop those rows from being used for search?"}),

    # ---------------------------------------------------------------- 06 · the triplet objective
    "06.1a": number(
        "The triplet loss for d(a, p) = 0.8, d(a, n) = 1.5 and ε = 1?",
        0.3, 0.001,
        "Write max(d(a, p) − d(a, n) + ε, 0) and put the numbers in.",
        "Write max(d(a, p) − d(a, n) + ε, 0) and put the numbers in.",
        {1.7: "Check the signs: the loss grows when the positive is far, so d(a, p) comes with +.",
         -0.7: "Add the margin, then apply the hinge."}),
    "06.1b": number(
        "And with ε = 0.5?",
        0, 0.001,
        "A hinge max(·, 0) is never negative.",
        "Write max(d(a, p) − d(a, n) + ε, 0) with the new ε.",
        {1.2: "Check the signs: the loss grows when the positive is far, so d(a, p) comes with +."}),
    "06.2": choice(
        "Why does a sensible margin depend on whether the encoder normalises its vectors?",
        "Unit vectors are at most 2 apart: a larger margin is never met",
        {"Normalised vectors train faster, so they need a smaller one":
            "Speed is not the point. In which units is the margin measured?",
         "The margin is in cosine units, which normalising changes":
            "The loss here uses Euclidean distances. How far apart can two unit vectors be?",
         "It does not: ε = 1 suits every encoder equally well":
            "What is the largest Euclidean distance between two unit-length vectors?"}),
    "06.3": choice(
        "Where do the paper's triplets of Section 4.4 come from?",
        "Wikipedia sections: the negative from another section of the same article",
        {"NLI: a premise, an entailed and a contradicting hypothesis":
            "Those are ours, which is why our accuracies are not comparable with Table 4.",
         "STSb pairs, split into positives and negatives at a gold score of 2.5":
            "Section 4.4 uses no STS data.",
         "Wikipedia sections: the negative from a different, random article":
            "The negative is a hard one: from the same article."}),
    "06.4": choice(
        "Why does MNRL usually train better than the triplet loss for the same compute?",
        "Each anchor must beat many negatives at once",
        {"It is trained with a larger learning rate":
            "The rate is a setting of the run, not of the objective.",
         "It needs no negatives, so no bad ones":
            "Count them: with B triplets, 2B − 1 per anchor.",
         "The triplet loss cannot be batched":
            "Your triplet_loss takes (B, n) tensors."}),
    "06.5": choice(
        "If no training triplet ever reached a gap of 1, why would ε = 1 and ε = 5 train the same model?",
        "With every hinge active, ε is a constant with zero gradient",
        {"Margins above 1 are clipped to 1 by the loss":
            "Nothing clips ε. Differentiate the loss with respect to the weights: where does ε go?",
         "They would not: a larger margin always pushes harder":
            "Differentiate d(a,p) − d(a,n) + ε with respect to the weights: where does ε go?",
         "Because both runs use the same learning rate":
            "Same rate, same seed — but different losses. Why would their gradients agree?"}),

    # ---------------------------------------------------------------- 07 · ablations
    "07.1a": number(
        "How many distinct configurations (trainings, not counting seeds) are behind Table 6?",
        12, 0,
        "Count the pooling and the concatenation rows under NLI, and the regression column.",
        "The default configuration appears in both the pooling and the concatenation rows.",
        {13: "The default (mean, (u, v, |u−v|)) is one training, shared by both groups.",
         9: "The regression column has trainings of its own.",
         10: "Take away the shared default, and add the regression column."}),
    "07.1b": number(
        "How many runs did the paper make for them?",
        120, 0,
        "Each configuration is trained with several seeds.",
        "Twelve configurations, the paper's number of seeds each.",
        {130: "The default configuration is one training, shared by two groups.",
         12: "Each configuration is trained with several seeds."}),
    "07.2": choice(
        "Why does the regression column vary only the pooling, not the concatenation?",
        "Regression has no classifier, so no features to concatenate",
        {"The paper ran out of compute for more regression runs":
            "Regression runs are cheap (5,749 pairs). What would a concatenation feed under regression?",
         "Concatenation made no difference under the regression objective":
            "It was never tried. What does the regression objective compute from u and v?"}),
    "07.3a": number(
        "71.0 ± 1.2 against 69.5 ± 1.5 (mean ± sample std, 3 seeds each): how many standard errors of the difference "
        "apart are the two means?",
        1.355, 0.06,
        "The standard error of a mean is its std / √3, and the two variances add.",
        "The standard error of a mean is its std / √3, and the two variances add.",
        {0.78: "Each mean's standard error is its std divided by √(number of seeds).",
         0.96: "Variances add, not standard errors: √(1.2²/3 + 1.5²/3)."}),
    "07.3b": choice(
        "Is that difference larger than the seed noise?",
        "No: more seeds are needed to rank the two",
        {"Yes: 1.5 points is more than either std":
            "Compare the difference with its own standard error, not with a single run's std."}),
    "07.4": choice(
        "The concatenation changes a classifier that is thrown away. How can it change the encoder's STSb score?",
        "The encoder's gradient comes through that classifier",
        {"It cannot: the differences in Table 6 are seed noise":
            "Table 6 gives means only, no spread; Table 2's seed stds are 0.13–0.81 points. Compare 66.04 and 80.78 "
            "with that.",
         "The classifier is kept and used at inference":
            "Inference is encode and cosine (Figure 2)."}),
    "07.5": choice(
        "MAX is 17.5 points below MEAN under regression but 1.7 after NLI. What differs between the two set-ups?",
        "Objective (cosine trained directly vs a classifier) and data size",
        {"The tokenizer: regression runs use a smaller vocabulary":
            "Same BERT, same tokenizer in both.",
         "The model size: the regression runs train a smaller BERT":
            "Both are bert-base.",
         "The test set: the NLI column is scored on SICK-R instead":
            "Both columns are STSb dev scores. What is trained differently?"}),
    "07.6": number(
        "About how many optimizer steps is one NLI training of the grid (one epoch of ~942k AllNLI pairs, batch 16)?",
        58_875, 1_000,
        "A step is one batch of 16 pairs; one epoch sees every pair once.",
        "A step is one batch of 16 pairs.",
        {942_000: "A step is a batch of 16, not one pair.",
         5_300_000: "That is the whole grid. One training is one configuration and one seed."}),

    # ---------------------------------------------------------------- 08 · transfer with SentEval
    "08.1": choice(
        "In SentEval, what is trained?",
        "A logistic regression on the frozen vectors",
        {"The encoder, fine-tuned on each task":
            "SentEval measures what the vectors already carry: the encoder stays fixed.",
         "Nothing: cosine to each class's centroid":
            "Something is trained, on the vectors."}),
    "08.2": choice(
        "Averaged BERT loses to averaged GloVe in Table 1 but wins in Table 5. The paper's explanation?",
        "A classifier can weight dimensions; cosine cannot",
        {"Table 5 uses a larger BERT than Table 1 does":
            "The same averaged BERT vectors go into both tables.",
         "SentEval's tasks are easier than STS for any model":
            "Easier for GloVe too. What differs in how the vectors are used?",
         "GloVe was trained on less text than BERT":
            "That holds in both tables. What differs in how the vectors are used?"}),
    "08.3": choice(
        "Why must the majority label come from the train split?",
        "Taking it from test labels would peek at the answers",
        {"The test split is too small to count labels reliably":
            "Size is not the point. What may a baseline know about the test labels?",
         "The train split is always balanced between the labels":
            "It need not be. What may a baseline know about the test labels?"}),
    "08.4": choice(
        "How does the paper explain SBERT-NLI-base trailing USE on TREC?",
        "USE was pre-trained on question-answering data",
        {"Similarity training discards question words":
            "The paper claims no such thing; an experiment (probing the vectors for wh-words) would be needed.",
         "TREC is too small to train a classifier on":
            "All rows train on the same TREC data.",
         "SBERT cannot encode questions well":
            "It encodes any sentence. What did USE see in pre-training?"}),
    "08.5": choice(
        "Why is 'the trained network against its own starting point, same subsets and folds' the fair comparison?",
        "Only the training differs between the two",
        {"Our network is better than the paper's":
            "It is not; that is why we do not compare levels with the paper.",
         "Fixed folds make each accuracy exact":
            "Subsets of 500 examples move accuracies by a point or two; what does keeping them fixed buy?"}),
    "08.6": choice(
        "MRPC's pair features are (|u−v|, u*v). How do they relate to SBERT's classification objective?",
        "The same idea as its (u, v, |u−v|), without raw u and v",
        {"They are exactly the features SBERT's classifier reads":
            "Compare the tuples item by item.",
         "Unrelated: SBERT's classifier reads a cosine":
            "The classification objective never computes a cosine: what does its classifier read?"}),
    "08.7a": choice(
        "Why must the standardising statistics come from training sentences, not the test pairs being scored?",
        "Test data would shape the model: a leak",
        {"Test pairs are too few to estimate a mean":
            "Even with many test pairs, should the test data set the model's parameters?",
         "Training sentences give larger deviations":
            "Size of the numbers is not the point. Who may the evaluation data influence?"}),
    "08.7b": choice(
        "Why can standardising change a cosine's Spearman at all?",
        "It re-weights the dimensions inside the cosine",
        {"It cannot: Spearman ignores any change of scale":
            "Scaling every dimension by its own factor is not one global scale: does it keep the angles?",
         "It changes the gold scores as well as the vectors":
            "The gold scores are untouched. What happens to the vectors?"}),

    # ---------------------------------------------------------------- 09 · visualising embeddings
    "09.1a": choice(
        "Where does the paper call BERT's space 'rather unsuitable' for cosine similarity?",
        "In the conclusion (Section 8)",
        {"In the abstract, as its motivation":
            "The abstract speaks of speed and of SBERT. Look at the end of the paper.",
         "In Section 3 (Model), before the objectives":
            "Section 3 describes SBERT's architecture. Look at the end of the paper.",
         "In Table 1's caption":
            "The table gives the numbers; the sentence is in the paper's closing section."}),
    "09.1b": choice(
        "Which measurements back it?",
        "Table 1: BERT vectors below averaged GloVe",
        {"Table 5: averaged BERT loses on SentEval":
            "In Table 5 averaged BERT does well: a classifier can re-weight dimensions.",
         "Table 7: plain BERT is slow to run":
            "Speed says nothing about cosine similarity."}),
    "09.2": choice(
        "The classification objective never computes a cosine. Why does it still change cosine similarities?",
        "Its classifier reads |u−v|: entailed pairs are pulled close",
        {"It does not: only MNRL changes the cosines":
            "Compare the untrained and trained pictures of this notebook.",
         "The classifier's weights are copied into the encoder":
            "Nothing is copied. Which feature of (u, v, |u−v|) measures distance?"}),
    "09.3": choice(
        "Why can a negation stay close to its sentence in a well-trained similarity space?",
        "Cosine measures shared content, and it shares almost all",
        {"The tokenizer drops 'not' as a stop word before encoding":
            "The tokenizer keeps 'not'. What do the two sentences share?",
         "NLI labels are too noisy to teach what negation means":
            "The labels are fine. What does a cosine measure?"}),
    "09.4": choice(
        "What does a UMAP picture preserve?",
        "Neighbourhoods",
        {"Distances between islands":
            "UMAP does not preserve distances between islands.",
         "The sizes of the islands":
            "UMAP does not preserve sizes or shapes of islands.",
         "The model's own classes":
            "The colours are our labels; the model never saw them."}),
    "09.5": choice(
        "Why can the separation score be small for an anisotropic model whose neighbourhoods are sensible?",
        "It is in cosine units; squeezed cosines give small gaps",
        {"Anisotropic models have no sensible neighbourhoods":
            "The question says they do. What does separation measure, in which units?",
         "Separation looks only at the nearest neighbour":
            "That is the 1-NN agreement. Separation compares mean cosines within and between groups."}),
    "09.6": choice(
        "Why is an untrained network grouping TREC questions by type no evidence of understanding?",
        "The type is in the first words, and averaging keeps them",
        {"The TREC labels are assigned at random, so any grouping is luck":
            "The labels are real. What do questions of one type have in common on the surface?",
         "UMAP invents groups that are not there in the vectors":
            "The 1-NN agreement is measured in the embedding itself, not in the picture."}),

    # ---------------------------------------------------------------- 10 · similarity explorer
    "10.1": choice(
        "Without stemming, which pair would a word-overlap check wrongly count as sharing no words?",
        "\"A kid plays.\" / \"Kids playing.\"",
        {"\"A man plays guitar.\" / \"A man plays a guitar.\"":
            "Those share words even as raw strings.",
         "\"A cat sleeps.\" / \"The stock market fell.\"":
            "Those share no words with or without stemming: no stemming needed to see it."}),
    "10.2": choice(
        "The raw network gives an unrelated pair a high cosine. What does that say?",
        "Its vectors lie in a narrow cone",
        {"The network ranks pairs badly":
            "Ranking needs only the order of the cosines. Would a high level alone tell you it?",
         "The two sentences are related after all":
            "Unrelated by construction; look at where all its vectors lie (notebook 01)."}),
    "10.3": choice(
        "When do cosine and (negative) Euclidean distance rank pairs identically?",
        "For unit-length vectors",
        {"Always, for any vectors":
            "Long vectors are far from everything by Euclidean distance but not by cosine.",
         "When the vectors are centred":
            "Centring moves every vector, changing both lengths and directions: lengths still differ afterwards. "
            "When does distance depend on the angle only?",
         "Never: they measure different things":
            "Write |u − v|² for vectors of length 1."}),
    "10.4": choice(
        "Why can semantic search answer a query with one encoding and one matrix product?",
        "The corpus vectors were computed once, in advance",
        {"The query is compared with a sample of the corpus":
            "The matrix product covers every corpus sentence.",
         "A cross-encoder pre-computed every pair's score":
            "A cross-encoder has no per-sentence vectors to pre-compute: it runs once per (query, sentence) pair."}),
    "10.5": choice(
        "Offline, what differs between the 'raw' and the 'trained on NLI' model?",
        "Only training: notebook 03's MNRL run",
        {"The architecture: the trained one is larger":
            "Both are the same network. What happened to one of them?",
         "The trained one is all-MiniLM-L6-v2":
            "MiniLM is the reference, never fine-tuned here.",
         "The pooling: CLS against mean":
            "Both pool by the mean."}),

    # ---------------------------------------------------------------- 11 · speed, smart batching
    "11.1": choice(
        "The attention mask keeps padding out of the sentence vector. Why does padding still cost time?",
        "The network computes every padded position anyway",
        {"It does not: masked positions are skipped by the network":
            "The mask is applied to what the network computed. What did it compute?",
         "Tokenising the padding tokens is slow on a CPU":
            "Padding is added after tokenising. What does the network do with a (batch, longest) tensor?"}),
    "11.2": choice(
        "What decides how much smart batching gains on a corpus?",
        "How widely the sentence lengths vary",
        {"The average sentence length of the corpus":
            "A corpus of equally long sentences has no padding to remove, however long they are.",
         "The batch size, whatever the corpus":
            "With every sentence the same length, would any batch size gain?"}),
    "11.3": choice(
        "Why is a single timing of encode on a shared machine not a result?",
        "Timings vary: warm up, repeat, report the median",
        {"encode is not deterministic, so its work varies":
            "The vectors are the same each time; the seconds are not. Why?",
         "Python's clock is too coarse for short timings":
            "The clock is fine; what it measures varies."}),
    "11.4": choice(
        "Why does token-budget batching sort longest first?",
        "A batch's first row is then its longest: its cost is known",
        {"Long sentences matter more, so they are encoded first":
            "Every sentence is encoded once whatever the order. What does the budget cap?",
         "So that the last batch is the largest and fastest":
            "What does the budget need to know about each batch while filling it?"}),
    "11.5a": number(
        "The paper's smart batching on a CPU: 44 → 83 sentences/s. What is its speed-up ratio?",
        83 / 44, 0.02,
        "Divide the new speed by the old.",
        "Divide the new speed by the old.",
        {44 / 83: "Divide the new speed by the old, not the other way round.",
         39: "A ratio, not a difference."}),
    "11.5b": choice(
        "Why compare our speed-up ratio with the paper's, not our sentences/s with 83?",
        "A ratio on one machine cancels most differences",
        {"The paper's 83 is a misprint for a lower figure":
            "It is the paper's measurement on its machine. What else was different there?",
         "Our timer counts differently from the paper's":
            "Seconds are seconds. What else differs between the two machines and networks?"}),
    "11.6": choice(
        "Why is bf16 the safer choice for running a whole network, and what does it give up?",
        "float32's range, so no new overflow; it gives up precision",
        {"It is more precise than float16; it gives up range":
            "Count the bits: float16 keeps 3 more mantissa bits than bf16.",
         "It uses fewer bytes than float16; it gives up speed":
            "Both are 16 bits.",
         "It is exact for integers; it gives up range":
            "The difference is in exponent and mantissa bits."}),
    "11.7": choice(
        "Why does int8 usually move the Spearman and the vectors more than bf16?",
        "One scale per tensor: outliers coarsen every small value",
        {"int8 has fewer bits in total than bf16, so it is coarser":
            "bf16 keeps only 8 significant bits too. What sets the size of int8's steps?",
         "int8 rounds every value to a whole number, without a scale":
            "There is a scale. Whose value sets it?"}),
    "11.8": choice(
        "On a CPU without AMX or AVX512-BF16, why is bf16 slower than fp32?",
        "Every bf16 product is converted to float32 and back",
        {"bf16 moves more bytes than fp32 through memory":
            "It moves half the bytes. What does the CPU do with each bf16 number?",
         "bf16 needs more iterations to converge to the result":
            "This is inference, not training. What does the hardware do with each product?"}),

    # ---------------------------------------------------------------- 12 · search and clustering
    "12.1a": number(
        "How many forward passes does a cross-encoder need to find the most similar pair among 1,000 sentences?",
        499_500, 0,
        "One pass for every unordered pair of different sentences.",
        "Count each unordered pair once, and no sentence with itself.",
        {1_000_000: "n² counts ordered pairs and each sentence with itself.",
         999_000: "(A, B) and (B, A) are one pair.",
         500_500: "A sentence with itself is no pair."}),
    "12.1b": number(
        "And a bi-encoder?",
        1_000, 0,
        "Each sentence must be encoded.",
        "The network encodes each sentence once; comparing vectors needs no pass.",
        {499_500: "Comparing two vectors is a cosine, not a network pass."}),
    "12.2": choice(
        "Why can a cross-encoder be more accurate than a bi-encoder of the same size on STS?",
        "Its attention compares the two sentences token by token",
        {"It has more parameters than the bi-encoder it beats":
            "Same size, by the question.",
         "It is trained on more data than the bi-encoder is":
            "More data would help a bi-encoder too. What can it look at that a bi-encoder cannot?"}),
    "12.3": choice(
        "What does a positive 'seen − test' gap mean, and why should a bi-encoder show a smaller one?",
        "Over-fitting; one vector per sentence must serve all its pairs",
        {"Seen pairs are harder; the bi-encoder has fewer parameters":
            "Seen pairs are not harder. What does scoring higher on them than on new pairs mean?",
         "The test set is noisier; a bi-encoder is scored on more pairs":
            "Noise moves the gap either way. What does a systematically positive gap mean?"}),
    "12.4": choice(
        "Retrieve-and-re-rank with k = 20: the best recall@1 re-ranking can reach is …",
        "the retriever's recall@20",
        {"1.0":
            "Re-ranking only reorders the 20 candidates it is given.",
         "the retriever's recall@1":
            "Re-ranking can move a target from rank 20 to rank 1."}),
    "12.5": choice(
        "Why is nprobe = nlist no answer to 'the smallest nprobe with recall ≥ 0.95'?",
        "It visits every cell: brute force, not the fewest cells",
        {"nprobe cannot be as large as nlist: FAISS refuses it":
            "It can. What does the question ask to minimise?",
         "It gives a recall below 0.95, since cells overlap":
            "Visiting every cell finds every neighbour. What does the question ask to minimise?"}),
    "12.6": choice(
        "Threshold 0.75 puts nearly every sentence in one community. What would you change?",
        "Raise the threshold, or calibrate it on the cosines",
        {"Lower the threshold, so that fewer pairs join":
            "A lower threshold joins even more pairs.",
         "Cluster fewer sentences at a time, in batches":
            "The cosines stay as high. What is wrong with an absolute 0.75 in this space?"}),
    "12.7": choice(
        "What goes wrong with a plain dot product on vectors that are not normalised?",
        "Long vectors come first for every query",
        {"Nothing: it ranks like the cosine":
            "u·v = |u| |v| cos(u, v): what else does it grow with?",
         "It is much slower than the cosine to compute":
            "Same matrix product. What does it rank by besides the angle?"}),
    "12.8a": choice(
        "Four shards, each with an exact index: why is the merged top-k exactly the global top-k?",
        "Each global top-k item is in its own shard's top-k",
        {"Each shard holds exactly a quarter of the top-k":
            "All of the top-k may sit in one shard. What does each shard return?",
         "The merger re-scores the whole corpus at the end":
            "It only sees what the shards return."}),
    "12.8b": choice(
        "Would that still hold with an IVF index on each shard?",
        "No: a shard may miss neighbours in unvisited cells",
        {"Yes: merging is exact whatever index each shard has":
            "Merging is exact only over what the shards return. Does an IVF shard return its own exact top-k?"}),

    # ---------------------------------------------------------------- 13 · your own data
    "13.1": choice(
        "Why does a random split of pairs overstate the test score when a sentence appears in several pairs?",
        "The model trains on the test pairs' sentences",
        {"Random splits are unbalanced by gold score":
            "Balance is not the issue. Where else do the test pair's sentences appear?",
         "Test pairs get easier gold scores by chance":
            "The gold scores are the annotators'. What has the model already seen?"}),
    "13.2": choice(
        "Your file scores pairs from 1 to 10. What must score_range be?",
        "(1, 10)",
        {"(0, 10)":
            "Then what would a score of 1 map to, and would anything map to 0?",
         "(0, 1)":
            "The file's scores run from 1 to 10.",
         "(-1, 1)":
            "That is a cosine's range, the default; your file's scores are not cosines."}),
    "13.3": choice(
        "Pairs of (question, answer) with no score and no label: which objective fits?",
        "MNRL (in-batch negatives)",
        {"The regression objective":
            "There is no score to regress on.",
         "The classification objective":
            "There is no label to classify.",
         "The triplet loss":
            "It needs an explicit negative in every row."}),
    "13.4": choice(
        "How do you tell a real gain from noise across several splits?",
        "Positive on every split, and larger than its SD",
        {"A mean gain above 0 over the splits":
            "A mean smaller than its spread could come from noise alone.",
         "One split with a gain of several points":
            "One split is one draw of noise."}),
    "13.5": choice(
        "Why start from notebook 05's trained model when your own data is small?",
        "A few pairs can adjust meaning, not teach it",
        {"It trains faster per step":
            "Speed is not the point. What could a few dozen pairs teach a random encoder?",
         "The untrained network cannot be fine-tuned":
            "It can; notebook 03 did. What would so little data teach it?"}),
    "13.6": choice(
        "What does a sentence-transformers folder need beyond the weights and the tokenizer?",
        "The modules, pooling mode and maximum length",
        {"The optimizer state of the last step":
            "Loading for inference needs no optimizer. How would a loader know how to make the sentence vector?",
         "The training data, for fine-tuning later":
            "Loading for inference needs no data. How would a loader know how to make the sentence vector?"}),
    "14.1": choice(
        "What does the distillation loss compare?",
        "The student's vector of a sentence with the teacher's vector of it",
        {"The cosine of two sentences with their gold score":
            "That is the regression objective of notebook 05. What is the label of a distillation example?",
         "The student's NLI label with the teacher's":
            "Neither model predicts a label here. What does the teacher give each sentence?"}),
    "14.2": choice(
        "The student's vectors have 128 numbers, the teacher's 384. What makes the MSE between them possible?",
        "A linear projection from 128 to 384, started as the PCA's inverse",
        {"Padding the student's vectors with zeros":
            "Then 256 of the teacher's numbers could never be matched. What could map 128 numbers to 384?",
         "Cutting the teacher's vectors to their first 128 numbers":
            "The teacher's vector is the target as it is. What could the student add after its pooling?"}),
    "14.3": choice(
        "Why is the word-piece table centred before the SVD?",
        "Otherwise the first direction points at the mean word piece",
        {"The SVD fails on a table that is not centred":
            "It runs on any matrix. What would its first direction capture without centring?",
         "Centring makes the directions orthonormal":
            "The SVD's directions are orthonormal either way. What does the mean do to the first one?"}),
    "14.4": choice(
        "Why is the offline student's STSb score not a reproduction of the paper's SBERT-NLI-base?",
        "Its teacher is a published model trained on far more data: the knowledge is borrowed",
        {"The student is too small to count":
            "Size is not the point. Where did the student's knowledge come from?",
         "STSb test is a different data set offline":
            "It is the same test set. What did the student learn from, and what did that learn from?"}),
    "14.5": choice(
        "Why does the student encode faster than the teacher at the same precision?",
        "Fewer and narrower layers: less arithmetic per token",
        {"It has a smaller vocabulary":
            "The two share bert-base-uncased's word pieces. What else differs between the networks?",
         "Its vectors are normalised":
            "Both normalise; that costs almost nothing. How much work does each layer do?"}),
    "14.6": choice(
        "Where would you expect a distilled student to lose most against its teacher?",
        "On sentences unlike those it was distilled on",
        {"On the sentences it was distilled on":
            "There it was trained to match the teacher exactly. Where was it never shown the teacher's vectors?",
         "Nowhere: it gives the teacher's vectors everywhere":
            "Look at the Table 1 rows: does it match the teacher on every set?"}),
}
