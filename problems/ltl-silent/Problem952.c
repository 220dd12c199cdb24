#include <stdio.h>
#include <assert.h>

	// inputs
	int a= 1;
	int b= 2;

	// outputs
	int u = 21;
	int v = 22;

	int s = 0;

	int calculate_output(int input) {
	    if ((s == 7)) {
	        error_0: assert(0);
	    }
	    if ((s == 0) && (input == 1)) {
	        s = 1;
	        return -1;
	    } else if ((s == 1) && (input == 1)) {
	        s = 0;
	        return 21;
	    } else if ((s == 1) && (input == 2)) {
	        return 22;
	    }
	    return -2;
	}

int main()
{
    int output = -1;
    while(1)
    {
        int input;
        scanf("%d", &input);
        output = calculate_output(input);
        if(output == -2)
            fprintf(stderr, "Invalid input: %d\n", input);
        else if(output != -1)
            printf("%d\n", output);
    }
}
