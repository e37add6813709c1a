// gsearch/nn/nn.hpp — the neural modules of gsearch in one include (target gsearch::nn):
// tensors and workspaces (tensor.hpp), activations and Linear (layers.hpp), the autoencoder
// and UCT-AE (autoencoder.hpp), CSR graphs and batches (graph.hpp), the GAT layer and GAT-AE
// (gat.hpp), 2-D convolution on boards (conv.hpp), losses (loss.hpp), optimisers (optim.hpp),
// weight files (io.hpp), policy-value networks for batched search and AlphaZero training
// (policy_value.hpp), and the logistic fit that tunes an evaluation's weights on game
// outcomes (logistic_fit.hpp).
// docs/nn.md maps each equation of the paper to the function that computes it.
#pragma once

#include "gsearch/nn/autoencoder.hpp"
#include "gsearch/nn/conv.hpp"
#include "gsearch/nn/gat.hpp"
#include "gsearch/nn/graph.hpp"
#include "gsearch/nn/io.hpp"
#include "gsearch/nn/layers.hpp"
#include "gsearch/nn/logistic_fit.hpp"
#include "gsearch/nn/loss.hpp"
#include "gsearch/nn/optim.hpp"
#include "gsearch/nn/policy_value.hpp"
#include "gsearch/nn/tensor.hpp"
