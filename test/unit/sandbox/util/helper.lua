-- a module in the model's folder
helper_loads = (helper_loads or 0) + 1
return { twice = function(x) return 2 * x end }
