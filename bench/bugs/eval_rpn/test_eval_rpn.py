from eval_rpn import eval_rpn


def test_add_and_multiply():
    assert eval_rpn("3 4 + 2 *") == 14


def test_order_matters():
    assert eval_rpn("10 4 -") == 6
    assert eval_rpn("8 2 /") == 4
    assert eval_rpn("5 1 2 + 4 * + 3 -") == 14
