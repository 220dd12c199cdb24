// An invalid-input path (2012 style: calculate_output returns the output,
// -2 for invalid input). Hand-worked answers:
//   start a=1. A: a=2, output U. In a=2, B changes a to 3 and then returns
//   -2 (invalid input after a state change, as in 2012 Problem10).
//   In a=3, A hits error_0. In a=2, C outputs V. Anything else: -2, no change.
//   error_0: reachable only through the invalid step: witness A B A.
//   error_1: a==4 never happens: unreachable.
#include <stdio.h>
#include <assert.h>

	// inputs
	int A= 1;
	int B= 2;
	int C= 3;

	// outputs
	int U = 21;
	int V = 22;

	int a = 1;

	int calculate_output(int input) {
	    if((a == 1) && (input == 1)) {
	    	a = 2;
	    	return 21;
	    }
	    if((a == 2) && (input == 2)) {
	    	a = 3;
	    	return -2;
	    }
	    if((a == 3) && (input == 1)) {
	    	error_0: assert(0);
	    }
	    if((a == 4)) {
	    	error_1: assert(0);
	    }
	    if((a == 2) && (input == 3)) {
	    	return 22;
	    }
	    return -2;
	}

int main()
{
    // default output
    int output = -1;

    // main i/o-loop
    while(1)
    {
        // read input
        int input;
        scanf("%d", &input);

        // operate eca engine
        output = calculate_output(input);

        if(output == -2)
        	fprintf(stderr, "Invalid input: %d\n", input);
        else if(output != -1)
			printf("%d\n", output);
    }
}
