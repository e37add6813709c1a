// gsearch/gsearch.hpp — the core of gsearch in one include: the Game concept, move lists,
// random numbers and budgets. It depends on nothing outside the standard library.
#pragma once

#include "gsearch/core/budget.hpp"
#include "gsearch/core/game.hpp"
#include "gsearch/core/move_list.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/core/tree_view.hpp"
