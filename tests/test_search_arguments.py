"""The comma-list parsers shared by the search scripts in tuning/."""

from tuning.search_arguments import floats, ints


def test_ints_gives_the_choices_as_a_list():
    assert ints("8,16,32") == [8, 16, 32]
    assert ints("0") == [0]


def test_floats_gives_a_range_as_a_tuple_and_one_value_as_a_number():
    assert floats("0.1,0.5") == (0.1, 0.5)
    assert floats("1e-3,1e-2") == (1e-3, 1e-2)
    assert floats("0.3") == 0.3
    assert isinstance(floats("2"), float)
