{{! the epilogue operands e<k> and the result y, as kernel parameters }}{{#each EPI_IN}}
    KG_GLOBAL(const {{T}}) e{{I}},{{/each}} KG_GLOBAL({{OUT_T}}) y