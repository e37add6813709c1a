# `amazons train` and `amazons reproduce` (docs/paper-mapping.md), run as a user runs them.

set(_paper ${CMAKE_CURRENT_BINARY_DIR}/paper)
file(MAKE_DIRECTORY ${_paper})
set(_small ${CMAKE_CURRENT_SOURCE_DIR}/data/labels_small.jsonl)  # 166 labels of 5 positions

# Bad input: one line naming the file (and line), exit code 2, nothing written.
cli_test(NAME train_missing_labels CODE 2 ONE_LINE_ERR ERR "cannot read .*nonexistent.jsonl"
         ARGS train --labels ${_paper}/nonexistent.jsonl --out ${_paper}/none)
file(WRITE ${_paper}/damaged.jsonl "garbage\n")
cli_test(NAME train_damaged_labels CODE 2 ONE_LINE_ERR ERR "damaged.jsonl:1: not a label"
         ARGS train --labels ${_paper}/damaged.jsonl --out ${_paper}/none)
file(WRITE ${_paper}/bad_weights.json "{\"format\": \"something else\"}\n")
cli_test(NAME bad_weight_file CODE 2 ONE_LINE_ERR ERR "bad_weights.json: not a gsearch weight file"
         ARGS match uctae:uctae=${_paper}/bad_weights.json random --games 2)
cli_test(NAME reproduce_bad_weights CODE 2 ONE_LINE_ERR ERR "bad_weights.json: not a gsearch"
         ARGS reproduce --games 2 --gatae ${_paper}/bad_weights.json --out ${_paper}/none)
cli_test(NAME reproduce_bad_games CODE 2 ONE_LINE_ERR ERR "games" ARGS reproduce --games 1)

# Training end to end on a small label file, then agents playing with what it wrote.
cli_test(NAME train_small CODE 0 OUT "wrote .*uctae.json.*value.json" ERR "held-out ranking, GAT-AE"
         ARGS train --labels ${_small} --out ${_paper}/trained --ae-epochs 3 --gat-epochs 2
              --value-games 4)
set_tests_properties(cli.train_small PROPERTIES FIXTURES_SETUP trained_weights)
cli_test(NAME trained_weights_play CODE 0 OUT "\nA +2 "
         ARGS match hybrid:n=10,uctae=${_paper}/trained/uctae.json,gatae=${_paper}/trained/gatae.json,value=${_paper}/trained/value.json
              random --games 2)
set_tests_properties(cli.trained_weights_play PROPERTIES FIXTURES_REQUIRED trained_weights)
# The literal reading: no value scorer, GAT-AE on SGGA's visit shares.
cli_test(NAME train_small_literal CODE 0 OUT "wrote .*gatae.json and" ERR "literal reading"
         ARGS train --labels ${_small} --out ${_paper}/trained_literal --reading literal
              --ae-epochs 3 --gat-epochs 2 --sgga-runs 10)
cli_test(NAME train_bad_reading CODE 2 ONE_LINE_ERR ERR "reading"
         ARGS train --labels ${_small} --out ${_paper}/none --reading other)
